package imagebuild

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/cache"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gobuild"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/nodeimage"
)

// sandboxImage is the node's CRI sandbox image (kind v0.33.0
// images/base/files/etc/containerd/config.toml:37 sandbox_image).
const sandboxImage = "registry.k8s.io/pause:3.10"

// node builds one kind node image: its preloaded images, the base node
// image, then the preload (nodeimage.Preload) under LocalTag(ref).
func (b *builder) node(rec recipe) {
	res := &Result{Ref: rec.Ref, Kind: kindNode, Log: b.logPath("node", rec.Version)}
	b.results[rec.Ref] = res
	b.order = append(b.order, rec.Ref)
	start := time.Now()
	id, reused, err := b.buildNode(rec, res.Log)
	if err != nil {
		res.Err = fmt.Errorf("node image %s could not be built: %w", rec.Ref, err)
		b.o.Log.Error("node image not built", "ref", rec.Ref, "why", err.Error())
		return
	}
	res.Local, res.ID, res.Reused, res.Took = localTag(rec.Ref), id, reused, time.Since(start)
}

func (b *builder) buildNode(rec recipe, logPath string) (string, bool, error) {
	version := rec.Version
	bin, err := b.kubernetes(version)
	if err != nil {
		return "", false, err
	}
	kindMod, err := gobuild.Download(b.ctx, "sigs.k8s.io/kind", nodeimage.KindModuleVersion)
	if err != nil {
		return "", false, err
	}
	kf, err := nodeimage.ReadKindFiles(kindMod.Dir)
	if err != nil {
		return "", false, err
	}
	// buildcontext.go:208-210: the images kubeadm of this version asks for.
	out, err := exec.CommandContext(b.ctx, filepath.Join(bin, "kubeadm"), "config", "images", "list", "--kubernetes-version", version).Output()
	if err != nil {
		return "", false, fmt.Errorf("kubeadm %s config images list: %w", version, err)
	}
	kubeadmImages, err := parseKubeadmImages(string(out))
	if err != nil {
		return "", false, err
	}
	built, err := b.preloads(nodePreloads(kubeadmImages, sandboxImage, kf.CNIImages, kf.StorageImages))
	if err != nil {
		return "", false, err
	}
	crictl, err := b.program(crictlProgram(), "5–10 min on 2 busy cores")
	if err != nil {
		return "", false, err
	}
	base, err := b.rootfsImage(nodeimage.RootFS)
	if err != nil {
		return "", false, err
	}
	in := nodeimage.Inputs{
		Version:    version,
		BinDir:     bin,
		Crictl:     filepath.Join(crictl, "crictl"),
		Kind:       kf,
		Containerd: nodeimage.ContainerdOptions{SandboxImage: sandboxImage, RuncBinary: b.o.RuncBinary},
		Extra:      b.o.NodeExtra,
	}
	if b.o.NodeAdapt {
		if err := b.adaptNode(&in); err != nil {
			return "", false, err
		}
	}
	baseRef := "gpu-lab-rehearsal/node-base:" + version
	if _, _, err := b.buildSpec(nodeimage.BaseSpec(baseRef, base.ref, in), b.logPath("node-base", version)); err != nil {
		return "", false, err
	}
	local := localTag(rec.Ref)
	before, _ := b.o.Docker.ImageID(b.ctx, local)
	id, err := nodeimage.Preload(b.ctx, b.o.Docker, b.o.Log, local, baseRef, built, logPath)
	if err != nil {
		return "", false, err
	}
	return id, id == before, nil
}

// preloads builds (or finds built) each image a node preloads and returns
// their local names. One that could not be built fails the node: a node
// without its preloads would pull them, which a lab without registry
// access cannot, so it is not built at all.
func (b *builder) preloads(refs []string) ([]string, error) {
	var built, missing []string
	for _, p := range refs {
		if r := b.ensure(p); r.ID == "" {
			missing = append(missing, p)
		} else {
			built = append(built, r.Local)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("its preloaded images %s were not built (their errors are in the report): the node image is not built "+
			"without them", strings.Join(missing, ", "))
	}
	return built, nil
}

// pause compiles pause.c of the lab's newest Kubernetes module once.
func (b *builder) pause(tag string) (string, error) {
	key := "pause " + tag
	if r, ok := b.bins[key]; ok {
		return r.dir, r.err
	}
	bin, err := b.compilePause(tag)
	b.bins[key] = binResult{bin, err}
	return bin, err
}

func (b *builder) compilePause(tag string) (string, error) {
	if len(b.plan.Kubernetes) == 0 {
		return "", fmt.Errorf("pause %s: no Kubernetes version to take build/pause from", tag)
	}
	k8s := b.plan.Kubernetes[len(b.plan.Kubernetes)-1]
	m, err := gobuild.Download(b.ctx, "k8s.io/kubernetes", k8s)
	if err != nil {
		return "", err
	}
	src := filepath.Join(m.Dir, "build", "pause", "linux", "pause.c")
	args := pauseArgs(tag, k8s, src)
	dir := filepath.Join(b.root(), "pause", tag+"-"+cache.Key(args...))
	err = cache.Fill(b.ctx, b.o.Log, "pause "+tag, dir, func(partial, logPath string) error {
		out := filepath.Join(partial, "pause")
		cmd := pauseCommand(args, out)
		cmd = exec.CommandContext(b.ctx, cmd.Path, cmd.Args[1:]...)
		if msg, err := cmd.CombinedOutput(); err != nil {
			_ = os.WriteFile(logPath, msg, 0o644)
			return fmt.Errorf("pause %s: gcc: %w: %s", tag, err, msg)
		}
		if msg, err := exec.CommandContext(b.ctx, "strip", out).CombinedOutput(); err != nil {
			return fmt.Errorf("pause %s: strip: %w: %s", tag, err, msg)
		}
		return nil
	})
	return filepath.Join(dir, "pause"), err
}

// pauseArgs is gcc's command for pause.c without its output (build/pause/
// Makefile at v1.37.0:49: CFLAGS = -Os -Wall -Werror -static
// -DVERSION=v$(TAG)-$(REV), then strip at :112; REV is a git description
// a module zip does not have, so the version names the module instead).
func pauseArgs(tag, kubernetes, src string) []string {
	return []string{"gcc", "-Os", "-Wall", "-Werror", "-static", "-DVERSION=v" + tag + "-k8s.io/kubernetes@" + kubernetes, src}
}

// pauseCommand is the gcc command of PauseArgs writing out.
func pauseCommand(args []string, out string) *exec.Cmd {
	return exec.Command(args[0], append(append([]string(nil), args[1:]...), "-o", out)...)
}

// kindnetdTree extracts kind's images/kindnetd at KindnetdCommit from the
// kind git snapshot once, with the kube-network-policies commit its go.mod
// requires (KubeNetworkPoliciesCommit) beside it from that repository's
// snapshot, and points the module at it with a replace.
func (b *builder) kindnetdTree() (string, error) {
	if b.o.KindGitDir == "" || b.o.KubeNetworkPoliciesGitDir == "" {
		return "", fmt.Errorf("kindnetd is built from git history (the module proxy serves neither kind's images/kindnetd at %s nor "+
			"sigs.k8s.io/kube-network-policies at %s): give git directories of kubernetes-sigs/kind and kubernetes-sigs/kube-network-policies "+
			"with --kind-git-dir and --kube-network-policies-git-dir",
			kindnetdCommit[:8], kubeNetworkPoliciesCommit[:12])
	}
	return b.kindnetdTreeOf(kindnetdSnapshot, kubeNetworkPoliciesSnapshot)
}

func (b *builder) kindnetdTreeOf(kind, knp Snapshot) (string, error) {
	for _, c := range []struct {
		s      Snapshot
		gitDir string
		flag   string
	}{{kind, b.o.KindGitDir, "--kind-git-dir"}, {knp, b.o.KubeNetworkPoliciesGitDir, "--kube-network-policies-git-dir"}} {
		if _, err := CheckSnapshot(b.ctx, c.gitDir, c.s); err != nil {
			return "", fmt.Errorf("%w (%s %s)", err, c.flag, c.gitDir)
		}
	}
	dir := filepath.Join(b.root(), "src", "kindnetd-"+kind.Commit[:12]+"-knp-"+knp.Commit[:12])
	err := cache.Fill(b.ctx, b.o.Log, "kindnetd source", dir, func(partial, logPath string) error {
		if err := ExtractSnapshot(b.ctx, b.o.KindGitDir, kind, partial, "images/kindnetd"); err != nil {
			return err
		}
		if err := ExtractSnapshot(b.ctx, b.o.KubeNetworkPoliciesGitDir, knp, filepath.Join(partial, "kube-network-policies")); err != nil {
			return err
		}
		// partial is renamed to dir: the replace names the final path.
		cmd := exec.CommandContext(b.ctx, "go", "mod", "edit", "-replace",
			"sigs.k8s.io/kube-network-policies="+filepath.Join(dir, "kube-network-policies"))
		cmd.Dir = filepath.Join(partial, "images", "kindnetd")
		if msg, err := cmd.CombinedOutput(); err != nil {
			_ = os.WriteFile(logPath, msg, 0o644)
			return fmt.Errorf("kindnetd source: go mod edit: %w: %s", err, msg)
		}
		return nil
	})
	return filepath.Join(dir, "images", "kindnetd"), err
}

// quayEtcd is quay.io/coreos/etcd:<version> (etcd's Dockerfile: the three
// binaries in /usr/local/bin, CMD etcd), on the iptables base: kamaji-etcd's
// jobs may run a shell in it, which distroless lacks — a stand-in.
func quayEtcd(ref, version, binDir, base string) imagespec.Spec {
	var files []imagespec.File
	for _, bin := range []string{"etcd", "etcdctl", "etcdutl"} {
		files = append(files, imagespec.File{Dest: "/usr/local/bin/" + bin, Mode: 0o755, Src: filepath.Join(binDir, bin)})
	}
	return imagespec.Spec{Ref: ref, Base: base, Files: files, Cmd: []string{"/usr/local/bin/etcd"}, Source: "go.etcd.io/etcd @" + version}
}

// kubectl stands in for clastix/kubectl:<minor>: kubectl of the lab's
// Kubernetes version of that minor on the iptables base (it has a shell,
// as kamaji-etcd's job scripts need).
func kubectl(ref, version, binDir, base string) imagespec.Spec {
	return imagespec.Spec{
		Ref:    ref,
		Base:   base,
		Files:  []imagespec.File{{Dest: "/usr/local/bin/kubectl", Mode: 0o755, Src: filepath.Join(binDir, "kubectl")}},
		Source: "k8s.io/kubernetes@" + version + " cmd/kubectl",
	}
}

// NodeFiles parses --node-file values, HOSTPATH:NODEPATH[:MODE] (octal,
// default 0755), into files added to every node image.
func NodeFiles(specs []string) ([]imagespec.File, error) {
	var out []imagespec.File
	for _, s := range specs {
		parts := strings.Split(s, ":")
		if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || !strings.HasPrefix(parts[1], "/") {
			return nil, fmt.Errorf("--node-file %q: want HOSTPATH:/NODE/PATH[:MODE]", s)
		}
		mode := uint64(0o755)
		if len(parts) == 3 {
			m, err := strconv.ParseUint(parts[2], 8, 32)
			if err != nil {
				return nil, fmt.Errorf("--node-file %q: mode %q is not octal", s, parts[2])
			}
			mode = m
		}
		out = append(out, imagespec.File{Dest: parts[1], Src: parts[0], Mode: fs.FileMode(mode)})
	}
	return out, nil
}
