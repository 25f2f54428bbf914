package gobuild

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/rehearsal/imagebuild/cache"
	"github.com/gpu-lab/gpu-lab/ci/rehearsal/imagebuild/progress"
	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

// Build returns the directory holding p's binaries (its bin/ inside the
// entry root/go/<name>-<key>), building them the first time. Progress is
// logged while it builds (bincache.SpeakWhileGoBuild); a failure names the
// program and the log to read. estimate is said with every progress line.
func Build(ctx context.Context, log *slog.Logger, root string, p Program, estimate string) (string, error) {
	goVersion, err := goEnv(ctx, "GOVERSION")
	if err != nil {
		return "", err
	}
	goproxy, err := goEnv(ctx, "GOPROXY")
	if err != nil {
		return "", err
	}
	proxyEnv := []string{"GOPROXY=" + ProxyOnly(goproxy)}
	if p.LocalProxy != "" {
		proxyEnv[0] = "GOPROXY=" + p.LocalProxy + "," + ProxyOnly(goproxy)
	}
	dir := filepath.Join(root, "go", p.Name+"-"+p.Key(goVersion, runtime.GOOS, runtime.GOARCH))
	bin := filepath.Join(dir, "bin")
	if cache.Done(dir) {
		log.Info("reusing built binaries", "program", p.Name, "dir", bin)
		return bin, nil
	}
	start := time.Now()
	err = cache.Fill(ctx, log, p.Name, dir, func(partial, logPath string) error {
		logf, err := os.Create(logPath)
		if err != nil {
			return err
		}
		defer logf.Close()
		mod := filepath.Join(partial, "module")
		log.Info(fmt.Sprintf("building %s (%s@%s) once; a first build takes %s; progress every 25 s", p.Name, p.Module, p.Version, estimate),
			"log", logPath, "into", dir)
		if p.Tree != "" {
			if err := run(ctx, logf, partial, nil, "cp", "-a", p.Tree, mod); err != nil {
				return fmt.Errorf("build %s: copy source %s: %w", p.Name, p.Tree, err)
			}
		} else {
			if err := writeModule(mod, p); err != nil {
				return fmt.Errorf("build %s: %w", p.Name, err)
			}
			stop := progress.Speak(ctx, log, p.Name+" (go mod tidy: resolving and downloading modules)", logPath)
			err := run(ctx, logf, mod, proxyEnv, "go", "mod", "tidy")
			stop()
			if err != nil {
				return fmt.Errorf("build %s: go mod tidy in %s: %w; %s ends with:\n%s", p.Name, mod, err, logPath, bincache.TailFile(logPath, 30))
			}
		}
		env := append(p.Env(), proxyEnv...)
		if p.Tree != "" {
			// the tree's go.sum may lack sums of modules it only needs here
			env = append(env, "GOFLAGS=-mod=mod -buildvcs=false")
		}
		stop := bincache.SpeakWhileGoBuild(ctx, log, p.Name, estimate, logPath, func(ctx context.Context) int { return countPackages(ctx, mod, p, env) })
		err = run(ctx, logf, mod, env, "go", p.BuildArgs(filepath.Join(partial, "bin"))...)
		stop()
		if err != nil {
			return fmt.Errorf("build %s: go build: %w; %s ends with:\n%s", p.Name, err, logPath, bincache.TailFile(logPath, 30))
		}
		for from, to := range p.Rename {
			if err := os.Rename(filepath.Join(partial, "bin", from), filepath.Join(partial, "bin", to)); err != nil {
				return fmt.Errorf("build %s: %w", p.Name, err)
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	log.Info("built", "program", p.Name, "dir", bin, "took", time.Since(start).Round(time.Second).String())
	return bin, nil
}

func writeModule(dir string, p Program) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(p.GoMod()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tools.go"), []byte(p.ToolsGo()), 0o644)
}

// run runs a command in dir, appending its output to logf after a line
// naming it, as the progress lines and errors quote the log.
func run(ctx context.Context, logf *os.File, dir string, env []string, name string, args ...string) error {
	fmt.Fprintf(logf, "# (cd %s && %s %s %s)\n", dir, strings.Join(env, " "), name, strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOWORK=off"), env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	return cmd.Run()
}

// countPackages counts the non-standard packages the build needs, so the
// progress lines can say how far it is; 0 when go list cannot tell.
func countPackages(ctx context.Context, dir string, p Program, env []string) int {
	args := []string{"list", "-deps", "-f", "{{if not .Standard}}p{{end}}"}
	if len(p.Tags) > 0 {
		args = append(args, "-tags", strings.Join(p.Tags, ","))
	}
	cmd := exec.CommandContext(ctx, "go", append(args, p.Packages...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		return 0
	}
	return strings.Count(string(out), "p\n")
}

func goEnv(ctx context.Context, name string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", name).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("the Go toolchain builds the rehearsal's programs: go env %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}
