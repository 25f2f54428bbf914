package nodeimage

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/cache"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/progress"
	"github.com/gpu-lab/gpu-lab/ci/images"
)

// preloadKey is the final node image's cache key: the base node image and
// every preloaded image, by ID.
func preloadKey(baseID string, preloadIDs []string) string {
	return cache.Key(append([]string{"preload", baseID}, preloadIDs...)...)
}

// importArgs is the ctr command that loads one docker save archive from
// stdin into the node's containerd, as kind's importer does
// (pkg/build/nodeimage/imageimporter.go:77-81: the CRI's namespace k8s.io,
// all platforms, not unpacked, digest names too). kind's import also
// labels the image pinned (--label), a flag Debian's ctr 1.6.20 lacks
// (`ctr images import --help`); PinArgs labels it afterwards instead.
var importArgs = []string{"ctr", "--namespace=k8s.io", "images", "import", "--all-platforms", "--no-unpack", "--digests", "-"}

// pinArgs labels an imported image pinned, so the kubelet's image garbage
// collection never removes it (kind's --label=io.cri-containerd.pinned=
// pinned), by its name in containerd (normalized).
func pinArgs(ref string) []string {
	return []string{"ctr", "--namespace=k8s.io", "images", "label", images.Normalize(ref), "io.cri-containerd.pinned=pinned"}
}

// Preload makes ref from the base node image with every image of preload
// (on the daemon) imported into the node's containerd, the way kind's
// node image build does (pkg/build/nodeimage/buildcontext.go:84-147): a
// container of the base image sleeps, containerd runs in it, each image
// is imported, containerd stops, and the container is committed with the
// node's entrypoint. Unless the daemon has ref with the same key already.
func Preload(ctx context.Context, d imagespec.Docker, log *slog.Logger, ref, base string, preload []string,
	logPath string) (string, error) {
	key, err := preloadKeyOf(ctx, d, ref, base, preload)
	if err != nil {
		return "", err
	}
	if imagespec.Built(ctx, d, ref, key) {
		log.Info("reusing node image", "ref", ref, "key", key)
		return d.ImageID(ctx, ref)
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return "", err
	}
	defer logf.Close()
	start := time.Now()
	name := fmt.Sprintf("gpu-lab-rehearsal-node-build-%d", time.Now().UnixNano())
	// kind runs its build container with seccomp unconfined and nothing
	// else (buildcontext.go createBuildContainer); no network is needed.
	if _, err := d.Run(ctx, "run", "-d", "--name", name, "--network", "none", "--security-opt", "seccomp=unconfined",
		"--entrypoint", "sleep", base, "infinity"); err != nil {
		return "", fmt.Errorf("node image %s: build container: %w", ref, err)
	}
	defer func() { _, _ = d.Run(context.WithoutCancel(ctx), "rm", "-f", "-v", name) }()
	step := func(what string, in io.Reader, args ...string) error {
		fmt.Fprintf(logf, "# %s: docker exec %s %s\n", what, name, strings.Join(args, " "))
		_, err := d.RunIO(ctx, in, logf, append([]string{"exec", "-i", name}, args...)...)
		if err != nil {
			return fmt.Errorf("node image %s could not be built: %s: %w (log %s)", ref, what, err, logPath)
		}
		return nil
	}
	if err := startContainerd(step); err != nil {
		return "", err
	}
	stop := progress.Speak(ctx, log, "node image "+ref+" (preloading images)", logPath)
	defer stop()
	if err := preloadImages(ctx, d, log, step, name, ref, preload, logPath); err != nil {
		return "", err
	}
	if err := stopContainerd(step); err != nil {
		return "", err
	}
	if err := commitNode(ctx, d, name, ref, key); err != nil {
		return "", err
	}
	log.Info("built node image", "ref", ref, "preloaded", len(preload), "took", time.Since(start).Round(time.Second).String())
	return d.ImageID(ctx, ref)
}

// execStep runs one command in the build container, logged; its error
// names the node image, the step and the log.
type execStep func(what string, in io.Reader, args ...string) error

// preloadKeyOf is preloadKey of the base node image and the preloaded
// images as the daemon has them; each must be built.
func preloadKeyOf(ctx context.Context, d imagespec.Docker, ref, base string, preload []string) (string, error) {
	baseID, err := d.ImageID(ctx, base)
	if err != nil {
		return "", fmt.Errorf("node image %s: base %s: %w", ref, base, err)
	}
	var ids []string
	for _, p := range preload {
		id, err := d.ImageID(ctx, p)
		if err != nil {
			return "", fmt.Errorf("node image %s: preloaded image %s is not built: %w", ref, p, err)
		}
		ids = append(ids, p+"="+id)
	}
	return preloadKey(baseID, ids), nil
}

// startContainerd starts containerd in the build container through step
// and waits until it answers.
func startContainerd(step execStep) error {
	if err := step("start containerd", nil, "bash", "-c", "nohup containerd > /var/log/containerd-build.log 2>&1 &"); err != nil {
		return err
	}
	// imageimporter.go:45-63 waits for the socket, then asks `ctr info`;
	// Debian's ctr 1.6.20 has no info command, `ctr version` asks the
	// server the same way.
	return step("wait for containerd", nil, "bash", "-c",
		"for i in $(seq 120); do if [ -S /run/containerd/containerd.sock ] && ctr version >/dev/null 2>&1; then exit 0; fi;"+
			" sleep 0.5; done; cat /var/log/containerd-build.log; exit 1")
}

// preloadImages imports every image of preload into the containerd of
// the build container name, checks that containerd has them all and pins
// them.
func preloadImages(ctx context.Context, d imagespec.Docker, log *slog.Logger, step execStep,
	name, ref string, preload []string, logPath string) error {
	for _, p := range preload {
		if err := importImage(ctx, d, step, p); err != nil {
			return err
		}
		log.Info("preloaded", "node", ref, "image", p)
	}
	// Checked before pinning: ctr images label fails on a missing name.
	out, err := d.Run(ctx, "exec", name, "ctr", "--namespace=k8s.io", "images", "list", "-q")
	if err != nil {
		return fmt.Errorf("node image %s: list imported images: %w", ref, err)
	}
	if missing := missing(preload, strings.Fields(string(out))); len(missing) > 0 {
		return fmt.Errorf("node image %s: containerd lacks %s after the import (log %s)", ref, strings.Join(missing, ", "), logPath)
	}
	for _, p := range preload {
		if err := step("pin "+p, nil, pinArgs(p)...); err != nil {
			return err
		}
	}
	return nil
}

// stopContainerd stops the build container's containerd through step and
// waits until it has exited.
func stopContainerd(step execStep) error {
	// kind only pkills it (imageimporter.go:67-69); waiting until it has
	// exited lets its metadata database close before the commit. The
	// container's init (sleep) never reaps it: an exited one stays a
	// zombie, which is not waited for.
	return step("stop containerd", nil, "bash", "-c",
		"pkill containerd; for i in $(seq 60); do ps -C containerd -o stat= | grep -qv '^Z' || exit 0; sleep 0.5; done; exit 1")
}

// commitNode commits the build container name as ref, with the node's
// entrypoint and the cache key.
func commitNode(ctx context.Context, d imagespec.Docker, name, ref, key string) error {
	if _, err := d.Run(ctx, "commit",
		"--change", "ENTRYPOINT "+jsonArray(entrypoint),
		"--change", "LABEL "+imagespec.KeyLabel+"="+key,
		name, ref); err != nil {
		return fmt.Errorf("node image %s: docker commit: %w", ref, err)
	}
	return nil
}

// importImage streams `docker save` of ref into the node's ctr import.
func importImage(ctx context.Context, d imagespec.Docker, step func(string, io.Reader, ...string) error, ref string) error {
	pr, pw := io.Pipe()
	save := make(chan error, 1)
	go func() {
		_, err := d.RunIO(ctx, nil, pw, "save", ref)
		pw.CloseWithError(err)
		save <- err
	}()
	err := step("import "+ref, pr, importArgs...)
	pr.Close()
	if serr := <-save; serr != nil && err == nil {
		err = fmt.Errorf("docker save %s: %w", ref, serr)
	}
	return err
}

// missing lists the refs of want that have lacks in have (containerd's
// names), however each is spelt.
func missing(want, have []string) []string {
	got := map[string]bool{}
	for _, h := range have {
		got[images.Normalize(h)] = true
	}
	var out []string
	for _, w := range want {
		if !got[images.Normalize(w)] {
			out = append(out, w)
		}
	}
	return out
}

func jsonArray(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return "[" + strings.Join(q, ",") + "]"
}
