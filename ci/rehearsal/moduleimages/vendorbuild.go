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
	"time"

	"github.com/gpu-lab/gpu-lab/ci/rehearsal/imagebuild/cache"
	"github.com/gpu-lab/gpu-lab/ci/rehearsal/imagebuild/gitsnap"
	"github.com/gpu-lab/gpu-lab/ci/rehearsal/imagebuild/progress"
	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
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
// building it the first time.
func buildVendored(ctx context.Context, log *slog.Logger, root, gitDir string, b vendorBuild, estimate string) (string, error) {
	goVersion, err := goVersion(ctx)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "go", b.Name+"-"+b.Key(goVersion))
	bin := filepath.Join(dir, "bin")
	if cache.Done(dir) {
		log.Info("reusing built binaries", "program", b.Name, "dir", bin)
		return bin, nil
	}
	repo, err := gitsnap.Open(gitDir)
	if err != nil {
		return "", fmt.Errorf("build %s: %w (a git directory of %s holding %s)", b.Name, err, b.Pin.Repo, b.Pin.Rev())
	}
	if err := repo.Check(ctx, b.Pin); err != nil {
		return "", fmt.Errorf("build %s: %w", b.Name, err)
	}
	start := time.Now()
	err = cache.Fill(ctx, log, b.Name, dir, func(partial, logPath string) error {
		logf, err := os.Create(logPath)
		if err != nil {
			return err
		}
		defer logf.Close()
		gopath := filepath.Join(partial, "gopath")
		src := filepath.Join(partial, "src")
		if b.GOPATHImport != "" {
			src = filepath.Join(gopath, "src", filepath.FromSlash(b.GOPATHImport))
		}
		log.Info(fmt.Sprintf("building %s (%s@%s, vendored) once; a first build takes %s; progress every 25 s", b.Name, b.Pin.Repo, b.Pin.Rev(), estimate), "log", logPath, "into", dir)
		stop := progress.Speak(ctx, log, b.Name+" (extracting "+b.Pin.Rev()+")", logPath)
		err = repo.Extract(ctx, b.Pin.Commit, src)
		stop()
		if err != nil {
			return fmt.Errorf("build %s: extract %s: %w", b.Name, b.Pin.Rev(), err)
		}
		env := append(os.Environ(), b.Env(gopath)...)
		stop = bincache.SpeakWhileGoBuild(ctx, log, b.Name, estimate, logPath, func(ctx context.Context) int { return countVendored(ctx, src, env, b) })
		cmd := exec.CommandContext(ctx, "go", b.BuildArgs(filepath.Join(partial, "bin"))...)
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = src, env, logf, logf
		err = cmd.Run()
		stop()
		if err != nil {
			return fmt.Errorf("build %s: go build in %s: %w; %s ends with:\n%s", b.Name, src, err, logPath, bincache.TailFile(logPath, 30))
		}
		for from, to := range b.Rename {
			if err := os.Rename(filepath.Join(partial, "bin", from), filepath.Join(partial, "bin", to)); err != nil {
				return fmt.Errorf("build %s: %w", b.Name, err)
			}
		}
		// the source (hundreds of MB with vendor/) is not needed again
		return os.RemoveAll(src)
	})
	if err != nil {
		return "", err
	}
	log.Info("built", "program", b.Name, "dir", bin, "took", time.Since(start).Round(time.Second).String())
	return bin, nil
}

// countVendored is the number of packages the build compiles (its
// progress lines' total); 0 when go list fails.
func countVendored(ctx context.Context, dir string, env []string, b vendorBuild) int {
	args := []string{"list", "-deps"}
	if len(b.Tags) > 0 {
		args = append(args, "-tags", strings.Join(b.Tags, ","))
	}
	cmd := exec.CommandContext(ctx, "go", append(args, b.Packages...)...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		return 0
	}
	return strings.Count(string(out), "\n")
}

func goVersion(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOVERSION").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOVERSION: %w (is Go installed?)", err)
	}
	return strings.TrimSpace(string(out)), nil
}
