package moduleimages

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/cache"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gitsnap"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gobuild"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/progress"
)

// Env is what go runs with: no proxy, no network (every dependency is in
// vendor/), static binaries, the tree's own mode (module or GOPATH).
func (b vendorBuild) Env(gopath string) []string {
	env := []string{"CGO_ENABLED=0", "GOWORK=off", "GOPROXY=off", "GOTOOLCHAIN=local"}
	if b.GOPATHImport != "" {
		return append(env, "GO111MODULE=auto", "GOPATH="+gopath, "GOFLAGS=-buildvcs=false")
	}
	return append(env, "GOFLAGS=-mod=vendor -buildvcs=false")
}

// BuildArgs are go build's arguments writing the binaries into out.
func (b vendorBuild) BuildArgs(out string) []string {
	args := []string{"build", "-v", "-trimpath", "-o", out + "/"}
	if len(b.Tags) > 0 {
		args = append(args, "-tags", strings.Join(b.Tags, ","))
	}
	if b.LDFlags != "" {
		args = append(args, "-ldflags", b.LDFlags)
	}
	return append(args, b.Packages...)
}

// Key decides the cache entry: toolchain, platform, commit, arguments.
func (b vendorBuild) Key(goVersion string) string {
	parts := []string{goVersion, runtime.GOOS + "/" + runtime.GOARCH, b.Pin.Commit, b.GOPATHImport}
	parts = append(parts, b.Env("GOPATH")...)
	parts = append(parts, b.BuildArgs("OUT")...)
	keys := make([]string, 0, len(b.Rename))
	for k := range b.Rename {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, "rename", k, b.Rename[k])
	}
	return cache.Key(parts...)
}

// buildVendored returns the directory holding b's binaries (the entry
// root/go/<name>-<key>/bin), extracting the pinned commit from gitDir and
// building it the first time (gobuild.Cached: the steps every Go build of
// the rehearsal shares).
func buildVendored(ctx context.Context, log *slog.Logger, root, gitDir string, b vendorBuild, estimate string) (string, error) {
	goVersion, err := gobuild.GoVersion(ctx)
	if err != nil {
		return "", err
	}
	repo, err := gitsnap.Open(gitDir)
	if err != nil {
		return "", fmt.Errorf("build %s: %w (a git directory of %s holding %s)", b.Name, err, b.Pin.Repo, b.Pin.Rev())
	}
	if err := repo.Check(ctx, b.Pin); err != nil {
		return "", fmt.Errorf("build %s: %w", b.Name, err)
	}
	return gobuild.Cached{
		Name:     b.Name,
		Source:   b.Pin.Repo + "@" + b.Pin.Rev() + ", vendored",
		Entry:    filepath.Join(root, "go", b.Name+"-"+b.Key(goVersion)),
		Estimate: estimate,
		Prepare: func(ctx context.Context, partial string, logf *os.File) (string, []string, error) {
			gopath := filepath.Join(partial, "gopath")
			src := filepath.Join(partial, "src")
			if b.GOPATHImport != "" {
				src = filepath.Join(gopath, "src", filepath.FromSlash(b.GOPATHImport))
			}
			stop := progress.Speak(ctx, log, b.Name+" (extracting "+b.Pin.Rev()+")", logf.Name())
			err := repo.Extract(ctx, b.Pin.Commit, src)
			stop()
			if err != nil {
				return "", nil, fmt.Errorf("build %s: extract %s: %w", b.Name, b.Pin.Rev(), err)
			}
			return src, b.Env(gopath), nil
		},
		Args:       b.BuildArgs,
		Count:      func(ctx context.Context, dir string, env []string) int { return countVendored(ctx, dir, env, b) },
		Rename:     b.Rename,
		DropSource: true,
	}.Build(ctx, log)
}

// countVendored is the number of packages the build compiles (its
// progress lines' total); 0 when go list fails.
func countVendored(ctx context.Context, dir string, env []string, b vendorBuild) int {
	args := []string{"list", "-deps"}
	if len(b.Tags) > 0 {
		args = append(args, "-tags", strings.Join(b.Tags, ","))
	}
	cmd := exec.CommandContext(ctx, "go", append(args, b.Packages...)...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		return 0
	}
	return strings.Count(string(out), "\n")
}
