package run

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
)

// Probe reads what the report says about the machine and the lab: it runs
// short commands and reads files, and never changes anything.
type Probe interface {
	// host are the versions of what runs the lab.
	host(ctx context.Context, p Paths) hostInfo
	// labctlVersion is `labctl version` of the binary that runs the lab.
	labctlVersion(ctx context.Context, labctl string) string
	// imageLabels are the labels of an image on the private daemon.
	imageLabels(ctx context.Context, p Paths, name string) (map[string]string, error)
	// sample measures disk and the containers' memory peak now.
	sample(p Paths) sample
	// daemonPeakRSS is dockerd's and containerd's VmHWM by name.
	daemonPeakRSS(p Paths) map[string]int64
	// left lists the containers and the networks of its own that the
	// private daemon holds ("container NAME (STATUS)", "network NAME").
	left(ctx context.Context, p Paths) []string
}

// HostProbe is the real Probe.
type HostProbe struct {
	// CgroupRoot is /sys/fs/cgroup unless a test says otherwise.
	CgroupRoot string
}

func (h HostProbe) root() string {
	if h.CgroupRoot == "" {
		return "/sys/fs/cgroup"
	}
	return h.CgroupRoot
}

func (h HostProbe) v2() bool {
	_, err := os.Stat(h.root() + "/cgroup.controllers")
	return err == nil
}

// firstLine runs argv and returns its first output line, or why not.
func firstLine(ctx context.Context, env []string, argv ...string) string {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = mergeEnv(os.Environ(), env)
	b, err := cmd.CombinedOutput()
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if err != nil {
		return fmt.Sprintf("unknown (`%s`: %v: %s)", strings.Join(argv, " "), err, s)
	}
	return s
}

func (h HostProbe) host(ctx context.Context, p Paths) hostInfo {
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	cg := "v1 (/sys/fs/cgroup holds one hierarchy per controller)"
	if h.v2() {
		cg = "v2 (unified)"
	}
	return hostInfo{
		Kernel:     strings.TrimSpace(string(kernel)),
		Cgroup:     cg,
		Docker:     firstLine(ctx, p.env(), "docker", "version", "--format", "{{.Server.Version}}"),
		Containerd: firstLine(ctx, nil, "containerd", "--version"),
		Runc:       firstLine(ctx, nil, "runc", "--version"),
		Helm:       firstLine(ctx, nil, p.Helm, "version", "--short"),
	}
}

func (HostProbe) labctlVersion(ctx context.Context, labctl string) string {
	b, err := exec.CommandContext(ctx, labctl, "version").CombinedOutput()
	if err != nil {
		return fmt.Sprintf("unknown (`%s version`: %v)", labctl, err)
	}
	return string(b)
}

func (HostProbe) imageLabels(ctx context.Context, p Paths, name string) (map[string]string, error) {
	cmd := exec.CommandContext(ctx, "docker", "image", "inspect", "--format", "{{json .Config.Labels}}", name)
	cmd.Env = mergeEnv(os.Environ(), p.env())
	b, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = strings.TrimSpace(string(ee.Stderr))
		}
		return nil, fmt.Errorf("docker image inspect %s: %w: %s", name, err, stderr)
	}
	return parseLabels(b)
}

// parseLabels reads `docker image inspect --format '{{json .Config.Labels}}'`:
// a JSON object, or null for an image without labels.
func parseLabels(b []byte) (map[string]string, error) {
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("image labels %q: %w", strings.TrimSpace(string(b)), err)
	}
	return m, nil
}

func (h HostProbe) sample(p Paths) sample {
	var s sample
	s.DiskBytes, _ = diskUsage(p.Daemon.Dir, p.State)
	s.MemoryPeakBytes, _ = readInt(memoryPeakFile(h.root(), p.Netns, h.v2()))
	return s
}

func (HostProbe) daemonPeakRSS(p Paths) map[string]int64 {
	rec, err := hostdaemon.ReadRecord(p.Daemon)
	if err != nil {
		return nil
	}
	out := map[string]int64{}
	for _, name := range []string{"dockerd", "containerd"} {
		pr, ok := rec.Process(name)
		if !ok || !pr.Alive() {
			continue
		}
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pr.PID))
		if err != nil {
			continue
		}
		if n, err := peakRSS(status); err == nil {
			out[name] = n
		}
	}
	return out
}

// defaultNetworks are the networks every Docker daemon has.
var defaultNetworks = map[string]bool{"bridge": true, "host": true, "none": true}

func (HostProbe) left(ctx context.Context, p Paths) []string {
	var out []string
	for _, q := range [][]string{
		{"container", "ls", "--all", "--format", "{{.Names}} ({{.Status}})"},
		{"network", "ls", "--format", "{{.Name}}"},
	} {
		cmd := exec.CommandContext(ctx, "docker", q...)
		cmd.Env = mergeEnv(os.Environ(), p.env())
		b, err := cmd.CombinedOutput()
		if err != nil {
			out = append(out, fmt.Sprintf("(docker %s: %v: %s)", strings.Join(q[:2], " "), err, strings.TrimSpace(string(b))))
			continue
		}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l = strings.TrimSpace(l); l != "" && !defaultNetworks[l] {
				out = append(out, q[0]+" "+l)
			}
		}
	}
	return out
}
