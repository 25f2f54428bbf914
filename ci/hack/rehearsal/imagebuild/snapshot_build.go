package imagebuild

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/cache"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/components"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"
)

// snapshotSpec is the image spec of a recipe built from a git snapshot.
func (b *builder) snapshotSpec(rec recipe) (imagespec.Spec, error) {
	switch rec.Kind {
	case kindKamaji:
		return b.kamajiSpec(rec)
	case kindHAMi:
		return b.hamiSpec(rec)
	case kindCertManager:
		return b.certManagerSpec(rec)
	case kindCertgen:
		return b.certgenSpec(rec)
	}
	return imagespec.Spec{}, fmt.Errorf("image %s: no snapshot recipe for kind %q", rec.Ref, rec.Kind)
}

// kamajiSpec is Kamaji's image, its program built from kamajiSnapshot.
func (b *builder) kamajiSpec(rec recipe) (imagespec.Spec, error) {
	s := kamajiSnapshot
	tree, err := b.snapshotTree(s, nil, nil)
	if err != nil {
		return imagespec.Spec{}, err
	}
	bin, err := b.program(kamajiProgram(tree), "10–20 min on 2 busy cores")
	if err != nil {
		return imagespec.Spec{}, err
	}
	if err := b.staticBase(); err != nil {
		return imagespec.Spec{}, err
	}
	return components.Kamaji(rec.Ref, snapshotSource(s, ""), filepath.Join(bin, "kamaji")), nil
}

// hamiSpec is HAMi's image, its programs built from hamiSnapshot, with
// the libvgpu stub.
func (b *builder) hamiSpec(rec recipe) (imagespec.Spec, error) {
	s := hamiSnapshot
	tree, err := b.snapshotTree(s, nil, nil)
	if err != nil {
		return imagespec.Spec{}, err
	}
	bin, err := b.program(hamiProgram(tree), "10–20 min on 2 busy cores")
	if err != nil {
		return imagespec.Spec{}, err
	}
	base, err := b.iptablesBase()
	if err != nil {
		return imagespec.Spec{}, err
	}
	stub, err := libvgpuStub(b.ctx, b)
	if err != nil {
		return imagespec.Spec{}, err
	}
	source := snapshotSource(s, "cmd/scheduler, cmd/vGPUmonitor, cmd/device-plugin/nvidia")
	return withLibvgpuStub(components.HAMi(rec.Ref, hamiVersion, source, bin, tree, base), stub), nil
}

// certManagerSpec is the image of one cert-manager command (rec.Name),
// built from certManagerSnapshot.
func (b *builder) certManagerSpec(rec recipe) (imagespec.Spec, error) {
	s := certManagerSnapshot
	// one extraction for the four command modules: each replaces the
	// root module by ../../ (cmd/<name>/go.mod:12), which the build's
	// copy of the command directory no longer has beside it
	var edits []string
	for _, c := range certManagerCommands {
		edits = append(edits, `(cd cmd/`+c+` && go mod edit -replace "github.com/cert-manager/cert-manager=$4")`)
	}
	tree, err := b.snapshotTree(s, nil, edits)
	if err != nil {
		return imagespec.Spec{}, err
	}
	bin, err := b.program(certManagerProgram(rec.Name, filepath.Join(tree, "cmd", rec.Name)),
		"10–20 min on 2 busy cores for the first, minutes for the others")
	if err != nil {
		return imagespec.Spec{}, err
	}
	if err := b.staticBase(); err != nil {
		return imagespec.Spec{}, err
	}
	return components.CertManager(rec.Ref, rec.Name, snapshotSource(s, "cmd/"+rec.Name), filepath.Join(bin, rec.Name)), nil
}

// certgenSpec is the kube-webhook-certgen stand-in's image, built from
// certgenSnapshot.
func (b *builder) certgenSpec(rec recipe) (imagespec.Spec, error) {
	s := certgenSnapshot
	const dir = "images/kube-webhook-certgen/rootfs"
	tree, err := b.snapshotTree(s, []string{dir}, nil)
	if err != nil {
		return imagespec.Spec{}, err
	}
	bin, err := b.program(certgenProgram(filepath.Join(tree, dir)), "3–8 min on 2 busy cores")
	if err != nil {
		return imagespec.Spec{}, err
	}
	if err := b.staticBase(); err != nil {
		return imagespec.Spec{}, err
	}
	source := snapshotSource(s, dir) + " (stand-in: ingress-nginx's kube-webhook-certgen v1.1.1)"
	return components.Certgen(rec.Ref, source, filepath.Join(bin, "kube-webhook-certgen")), nil
}

// snapshotSource names a snapshot build for the image's source label.
func snapshotSource(s Snapshot, what string) string {
	out := "github.com/" + s.Repo + "@" + s.rev() + " (git " + s.Commit[:12] + ")"
	if what != "" {
		out += " " + what
	}
	return out
}

// snapshotTree extracts s's tree (ExtractSnapshot: the pinned commit,
// only paths when given) from the git directory --git-dir names for
// s.Repo into the cache once, checking on every run that the snapshot's
// tag still names the pinned commit. edit are shell lines run in the
// extracted tree; "$4" in them is the tree's final path (go.mod replaces
// name it; they run before the rename), "$1"–"$3" the git directory, the
// commit and the tree being filled.
func (b *builder) snapshotTree(s Snapshot, paths, edit []string) (string, error) {
	gitDir := b.o.GitDirs[s.Repo]
	if gitDir == "" {
		return "", fmt.Errorf("%s %s is built from git history (the module proxy does not serve it): give a git directory of github.com/%s "+
			"holding %s with --git-dir %s=DIR (the fetch tool's snapshot)",
			s.Repo, s.rev(), s.Repo, s.rev(), s.Repo)
	}
	if _, err := CheckSnapshot(b.ctx, gitDir, s); err != nil {
		return "", fmt.Errorf("%w (--git-dir %s=%s)", err, s.Repo, gitDir)
	}
	dir := filepath.Join(b.root(), "src", s.dir())
	if len(paths)+len(edit) > 0 {
		dir += "-" + cache.Key(append(append([]string{"paths"}, paths...), append([]string{"edit"}, edit...)...)...)
	}
	err := cache.Fill(b.ctx, b.o.Log, s.Repo+" "+s.rev()+" source", dir, func(partial, logPath string) error {
		if err := ExtractSnapshot(b.ctx, gitDir, s, partial, paths...); err != nil {
			return err
		}
		if len(edit) == 0 {
			return nil
		}
		cmd := exec.CommandContext(b.ctx, "bash", "-c", "set -e\n"+strings.Join(edit, "\n"), "bash", gitDir, s.Commit, partial, dir)
		cmd.Dir = partial
		if msg, err := cmd.CombinedOutput(); err != nil {
			_ = os.WriteFile(logPath, msg, 0o644)
			return fmt.Errorf("%s %s source: editing the extracted tree: %w: %s", s.Repo, s.rev(), err, msg)
		}
		return nil
	})
	return dir, err
}
