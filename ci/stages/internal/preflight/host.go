package preflight

import (
	"fmt"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// The inotify limits kind's known issues ask for ("Pod errors due to too
// many open files": Ubuntu's defaults 8192 and 128 are "not enough to create
// a cluster with many nodes"; kubernetes-sigs/kind
// site/content/docs/user/known-issues.md:214-225, at commit fed2688). The
// ci/stages/TROUBLESHOOTING.md names the same values.
const (
	MinInotifyWatches   = 524288
	MinInotifyInstances = 512
)

// diskFloor is the free space preflight asks for when it cannot measure the
// lab's images (no bundle: the nodes pull them). It is an order of
// magnitude, not a measurement: the two kindest/node images alone are about
// 1 GB each unpacked (README), already on the daemon when preflight runs,
// and every node keeps each image it runs twice (see DiskNeed); no image of
// the lab has been pulled and measured on the development machine, which
// has no registry access.
const diskFloor = 10 << 30

// HostFacts are preflight's readings of the daemon's host.
type HostFacts struct {
	// CgroupVersion is `docker info`'s CgroupVersion: "1" or "2" (moby
	// docker-v29.7.2 daemon/info_unix.go:28-31, also in 20.10), "" from a
	// daemon older than 20.10.
	CgroupVersion string
	// Probe is what a privileged container read (nil: no node stage is
	// selected, nothing privileged starts, nothing was probed).
	Probe *docker.HostProbe
}

// Need is free disk the lab asks for, with how it was reckoned.
type Need struct {
	Bytes uint64
	Basis string
}

// DiskNeed reckons the space the lab will still take once preflight has run.
// The node images, and with a bundle every bundled image, are on the daemon
// already (counted in what it has used). Each node then holds the images it
// runs twice: the image's content and its unpacked snapshot, since neither
// `ctr images import` (containerd v2.3.4 cmd/ctr/commands/images/import.go:
// --discard-unpacked-layers is off by default) nor the kubelet's pulls
// discard the content. With a bundle the sizes are the daemon's (sizes: a
// bundled reference → `docker image inspect` .Size): the management node's
// images once, the workers' once per worker, each twice. Without one the
// sizes cannot be known before the nodes pull: diskFloor. The larger of the
// two is the need. Containers' own data (etcd, logs) is not counted.
func DiskNeed(l *lab.Lab, list []images.Image, sizes map[string]int64) Need {
	if len(sizes) == 0 {
		return Need{Bytes: diskFloor, Basis: "no bundle: the images are pulled inside the nodes and their sizes are unknown beforehand; " +
			"an order-of-magnitude floor"}
	}
	workers := 0
	for _, t := range l.Tenants {
		workers += len(t.Workers)
	}
	var n uint64
	counted := 0
	seen := map[string]bool{} // a node imports an image once, whichever stages use it
	for _, i := range list {
		size, ok := sizes[i.Ref]
		key := string(i.Place) + " " + images.Normalize(i.Ref)
		if !ok || size <= 0 || !i.Bundled() || seen[key] {
			continue // not imported: inside the node image, built, or counted
		}
		seen[key] = true
		switch i.Place {
		case images.Management:
			n += 2 * uint64(size)
		case images.Worker:
			n += 2 * uint64(size) * uint64(workers)
		default:
			continue
		}
		counted++
	}
	basis := fmt.Sprintf("%d bundled images at the daemon's sizes, twice (content and unpacked) in each node that "+
		"runs them: the management node and %d workers", counted, workers)
	if n < diskFloor {
		return Need{Bytes: diskFloor, Basis: basis + fmt.Sprintf(" = %s, raised to the %s floor", gib(n), gib(diskFloor))}
	}
	return Need{Bytes: n, Basis: basis}
}

// HostProblems names every reason the host cannot run the lab, each with
// what to change; notes are what preflight tells the user besides (the
// cgroup v1 configuration it applies).
func HostProblems(f HostFacts, need Need) (problems, notes []string) {
	switch f.CgroupVersion {
	case "2":
		notes = append(notes, "cgroup v2")
	case "1":
		notes = append(notes, "cgroup v1 host: every kubelet of the lab is configured with failCgroupV1: false (kubelet "+
			"v1.35 and later refuse cgroup v1 otherwise); kind v0.33.0 warns that cgroup v1 is "+
			"deprecated and will not be supported in a future kind release "+
			"(pkg/cluster/internal/create/create.go:257) — boot the host with cgroup v2 "+
			"(systemd.unified_cgroup_hierarchy=1) to run as upstream tests")
	default:
		notes = append(notes, fmt.Sprintf("cgroup version unknown (docker info says %q; Docker 20.10 and later report it): assuming "+
			"cgroup v2", f.CgroupVersion))
	}
	if f.Probe == nil {
		return problems, notes
	}
	p := f.Probe
	if p.MaxUserWatches < MinInotifyWatches || p.MaxUserInstances < MinInotifyInstances {
		problems = append(problems, fmt.Sprintf("inotify limits fs.inotify.max_user_watches=%d, fs.inotify.max_user_instances=%d are below "+
			"%d and %d: kubelets and pods of several nodes fail with \"too many open files\". On the "+
			"daemon's host run `sudo sysctl -w fs.inotify.max_user_watches=%d "+
			"fs.inotify.max_user_instances=%d` (and put them in /etc/sysctl.d/ to keep them); a "+
			"container cannot raise them for itself",
			p.MaxUserWatches, p.MaxUserInstances, MinInotifyWatches, MinInotifyInstances,
			max(p.MaxUserWatches, MinInotifyWatches), max(p.MaxUserInstances, MinInotifyInstances)))
	} else {
		notes = append(notes, fmt.Sprintf("inotify watches %d, instances %d", p.MaxUserWatches, p.MaxUserInstances))
	}
	if p.FreeBytes < need.Bytes {
		problems = append(problems, fmt.Sprintf("%s free where the daemon stores images and containers, the lab needs about %s (%s). Free "+
			"space (`docker system prune`, `docker image prune -a`) or move Docker's data-root to a "+
			"larger disk",
			gib(p.FreeBytes), gib(need.Bytes), need.Basis))
	} else {
		notes = append(notes, fmt.Sprintf("%s free for images and containers, the lab needs about %s (%s)",
			gib(p.FreeBytes), gib(need.Bytes), need.Basis))
	}
	return problems, notes
}

// HostError joins the problems into one error.
func HostError(problems []string) error {
	return fmt.Errorf("preflight: the Docker daemon's host cannot run the lab:\n  - %s", strings.Join(problems, "\n  - "))
}

func gib(b uint64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }
