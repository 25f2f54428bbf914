package moduleimages

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/cache"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gitsnap"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gobuild"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/preflight"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/rootfs"
)

// Options configure a build.
type Options struct {
	// Root is the rehearsal cache (cache.Root() when empty).
	Root string
	// Docker is the daemon the images are built on and tagged in.
	Docker docker.CLI
	Log    *slog.Logger
	// MobyGitDir and CLIGitDir are git directories of moby/moby and
	// docker/cli holding MobyPin and CLIPin.
	MobyGitDir, CLIGitDir string
}

// Result is one image: its ID on the daemon and the archive kept in the
// cache (docker save), or why it was not built.
type Result struct {
	Ref, ID, Archive string
	Err              error
}

// Report is a build's outcome, image by image.
type Report struct {
	Results []Result
	// Stopped is why nothing was built (missing prerequisites).
	Stopped error
}

// Failed is the images not built.
func (r Report) Failed() []Result {
	var out []Result
	for _, x := range r.Results {
		if x.Err != nil {
			out = append(out, x)
		}
	}
	return out
}

// ArchivesDir is where each built image is kept as a docker save archive.
func ArchivesDir(root string) string { return filepath.Join(root, "module-images") }

// Build builds the three images (or reuses what the cache and the daemon
// hold) and saves each into ArchivesDir.
func Build(ctx context.Context, o Options) Report {
	if o.Root == "" {
		r, err := cache.Root()
		if err != nil {
			return Report{Stopped: err}
		}
		o.Root = r
	}
	if err := prerequisites(ctx, o); err != nil {
		return Report{Stopped: err}
	}
	b := &run{ctx: ctx, o: o, bins: Bins{}}
	var rep Report
	cliErr := b.binaries(cliBinaries)
	rep.Results = append(rep.Results, b.image(CLIRef, cliErr, func() (imagespec.Spec, error) {
		base, err := b.base(rootfsSpec("module-cli", cliPackages))
		return cliSpec(base, b.bins), err
	}))
	dindErr := errors.Join(cliErr, b.binaries(dindBinaries))
	rep.Results = append(rep.Results, b.image(DindRef, dindErr, func() (imagespec.Spec, error) {
		script, err := b.dindScript()
		if err != nil {
			return imagespec.Spec{}, err
		}
		base, err := b.base(rootfsSpec("module-dind", dindPackages))
		return dindSpec(base, b.bins, script), err
	}))
	rep.Results = append(rep.Results, b.image(GoRef, nil, func() (imagespec.Spec, error) {
		goroot, version, err := hostGo(ctx)
		if err != nil {
			return imagespec.Spec{}, err
		}
		s := rootfsSpec("module-golang", goPackages)
		fs, err := rootfs.Make(ctx, o.Log, o.Root, s)
		if err != nil {
			return imagespec.Spec{}, err
		}
		base, err := importWithGo(ctx, o.Docker, o.Log, s, fs, goroot, version)
		return goSpec(base, version), err
	}))
	return rep
}

func prerequisites(ctx context.Context, o Options) error {
	tools := []preflight.Tool{preflight.Debootstrap, preflight.Tar, preflight.Docker, preflight.Git, preflight.Go, preflight.Gcc}
	return preflight.Run(ctx, "rehearse module-images",
		preflight.Tools(exec.LookPath, tools...),
		preflight.Root(os.Geteuid(), "debootstrap makes the root file systems as root"),
		preflight.Daemon(func(ctx context.Context) error { _, err := o.Docker.Ping(ctx); return err }),
		preflight.FreeDisk(preflight.Free, o.Root, 8<<30, "--cache"),
		seccompStatic,
		gitDir("--moby-git-dir", o.MobyGitDir, MobyPin),
		gitDir("--cli-git-dir", o.CLIGitDir, CLIPin),
	)
}

// seccompStatic checks for libseccomp's static library, which runc's
// static build with the seccomp tag links.
func seccompStatic(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "gcc", "-print-file-name=libseccomp.a").Output()
	if err == nil && filepath.IsAbs(strings.TrimSpace(string(out))) {
		return ""
	}
	return "libseccomp.a is not found (runc " + RuncVersion + " is linked statically with seccomp): apt-get install libseccomp-dev"
}

func gitDir(flag, dir string, p gitsnap.Pin) preflight.Check {
	return func(ctx context.Context) string {
		if dir == "" {
			return fmt.Sprintf("%s is not set: a git directory of %s holding %s (the repository fetch tool's snapshot)", flag, p.Repo, p.Rev())
		}
		r, err := gitsnap.Open(dir)
		if err == nil {
			err = r.Check(ctx, p)
		}
		if err != nil {
			return fmt.Sprintf("%s %s: %v", flag, dir, err)
		}
		return ""
	}
}

// run is one build's state: the binaries built so far, by image name.
type run struct {
	ctx  context.Context
	o    Options
	bins Bins
}

// The binaries each image needs, and how each is built.
var (
	cliBinaries  = []string{"docker"}
	dindBinaries = []string{"dockerd", "docker-proxy", "containerd", "containerd-shim-runc-v2", "ctr", "runc"}
)

func (b *run) binaries(names []string) error {
	var errs []error
	for _, n := range names {
		if _, ok := b.bins[n]; ok {
			continue
		}
		dir, err := b.buildFor(n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		b.bins[n] = filepath.Join(dir, n)
	}
	return errors.Join(errs...)
}

// buildFor builds (or finds in the cache) the program holding binary n.
func (b *run) buildFor(n string) (string, error) {
	log, root := b.o.Log, b.o.Root
	switch n {
	case "docker":
		return buildVendored(b.ctx, log, root, b.o.CLIGitDir, cliBuild(), "about 5 min on 2 cores")
	case "dockerd", "docker-proxy":
		return buildVendored(b.ctx, log, root, b.o.MobyGitDir, dockerdBuild(), "about 15 min on 2 cores")
	case "containerd", "ctr":
		return gobuild.Build(b.ctx, log, root, containerdPrograms()[0], "about 10 min on 2 cores")
	case "containerd-shim-runc-v2":
		return gobuild.Build(b.ctx, log, root, containerdPrograms()[1], "about 3 min on 2 cores")
	case "runc":
		return gobuild.Build(b.ctx, log, root, runcProgram(), "about 2 min on 2 cores")
	}
	return "", fmt.Errorf("no build for binary %s", n)
}

// dindScript is moby's hack/dind at the pinned tag: what the published
// image downloads from the same path (29/dind/Dockerfile DIND_COMMIT).
func (b *run) dindScript() ([]byte, error) {
	r, err := gitsnap.Open(b.o.MobyGitDir)
	if err != nil {
		return nil, err
	}
	return r.File(b.ctx, MobyPin.Commit, "hack/dind")
}

// base makes s's root file system and imports it as a base image.
func (b *run) base(s rootfs.Spec) (string, error) {
	fs, err := rootfs.Make(b.ctx, b.o.Log, b.o.Root, s)
	if err != nil {
		return "", err
	}
	return rootfs.Import(b.ctx, b.o.Docker, b.o.Log, s, fs)
}

// image builds the spec spec returns, unless an input failed (pre), and
// saves it.
func (b *run) image(ref string, pre error, spec func() (imagespec.Spec, error)) Result {
	res := Result{Ref: ref}
	if pre != nil {
		res.Err = fmt.Errorf("not built: %w", pre)
		return res
	}
	s, err := spec()
	if err != nil {
		res.Err = err
		return res
	}
	slug := archiveName(ref)
	work := filepath.Join(b.o.Root, "module-build", slug)
	if err := os.MkdirAll(filepath.Dir(work), 0o755); err != nil {
		res.Err = err
		return res
	}
	if res.ID, err = imagespec.Build(b.ctx, b.o.Docker, b.o.Log, s, work, work+".log"); err != nil {
		res.Err = err
		return res
	}
	res.Archive, res.Err = b.save(ref, res.ID, slug)
	return res
}

// archiveName is an image's archive file name stem ("docker-29-dind").
func archiveName(ref string) string {
	name := strings.TrimPrefix(ref, "docker.io/library/")
	return strings.NewReplacer(":", "-", "/", "-").Replace(name)
}

// save keeps the image as ArchivesDir/<slug>.tar, written again only when
// the image ID differs from the one recorded beside it.
func (b *run) save(ref, id, slug string) (string, error) {
	dir := ArchivesDir(b.o.Root)
	tar, idFile := filepath.Join(dir, slug+".tar"), filepath.Join(dir, slug+".id")
	if got, err := os.ReadFile(idFile); err == nil && strings.TrimSpace(string(got)) == id {
		if _, err := os.Stat(tar); err == nil {
			return tar, nil
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	f, err := os.Create(tar + ".partial")
	if err != nil {
		return "", err
	}
	err = b.o.Docker.Save(b.ctx, ref, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tar+".partial", tar)
	}
	if err == nil {
		err = os.WriteFile(idFile, []byte(id+"\n"), 0o644)
	}
	if err != nil {
		return "", fmt.Errorf("keeping image %s as %s: %w", ref, tar, err)
	}
	b.o.Log.Info("kept image", "ref", ref, "archive", tar)
	return tar, nil
}

// Archives are the kept archives of the images built so far, by reference.
func Archives(root string) map[string]string {
	out := map[string]string{}
	for _, ref := range []string{CLIRef, DindRef, GoRef} {
		p := filepath.Join(ArchivesDir(root), archiveName(ref)+".tar")
		if _, err := os.Stat(p); err == nil {
			out[ref] = p
		}
	}
	return out
}
