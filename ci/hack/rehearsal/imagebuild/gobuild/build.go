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

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/progress"
	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

// Build returns the directory holding p's binaries (its bin/ inside the
// entry root/go/<name>-<key>), building them the first time. Progress is
// logged while it builds (bincache.SpeakWhileGoBuild); a failure names the
// program and the log to read. estimate is said with every progress line.
func Build(ctx context.Context, log *slog.Logger, root string, p Program, estimate string) (string, error) {
	goVersion, err := GoVersion(ctx)
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
	return Cached{
		Name:     p.Name,
		Source:   p.Module + "@" + p.Version,
		Entry:    filepath.Join(root, "go", p.Name+"-"+p.Key(goVersion, runtime.GOOS, runtime.GOARCH)),
		Estimate: estimate,
		Prepare: func(ctx context.Context, partial string, logf *os.File) (string, []string, error) {
			mod := filepath.Join(partial, "module")
			if p.Tree != "" {
				if err := run(ctx, logf, partial, nil, "cp", "-a", p.Tree, mod); err != nil {
					return "", nil, fmt.Errorf("build %s: copy source %s: %w", p.Name, p.Tree, err)
				}
				if p.Output != "" { // go build -o names a file there, not the directory
					if err := os.MkdirAll(filepath.Join(partial, "bin"), 0o755); err != nil {
						return "", nil, fmt.Errorf("build %s: %w", p.Name, err)
					}
				}
				if p.Vendored {
					return mod, append(p.Env(), "GOFLAGS=-mod=vendor -buildvcs=false"), nil
				}
				// the tree's go.sum may lack sums of modules it only needs here
				return mod, append(append(p.Env(), proxyEnv...), "GOFLAGS=-mod=mod -buildvcs=false"), nil
			}
			if err := writeModule(mod, p); err != nil {
				return "", nil, fmt.Errorf("build %s: %w", p.Name, err)
			}
			logPath := logf.Name()
			stop := progress.Speak(ctx, log, p.Name+" (go mod tidy: resolving and downloading modules)", logPath)
			err := run(ctx, logf, mod, proxyEnv, "go", "mod", "tidy")
			stop()
			if err != nil {
				return "", nil, fmt.Errorf("build %s: go mod tidy in %s: %w; %s ends with:\n%s", p.Name, mod, err, logPath,
					bincache.TailFile(logPath, 30))
			}
			return mod, append(p.Env(), proxyEnv...), nil
		},
		Args:   p.BuildArgs,
		Count:  func(ctx context.Context, dir string, env []string) int { return countPackages(ctx, dir, p, env) },
		Rename: p.Rename,
	}.Build(ctx, log)
}

func writeModule(dir string, p Program) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(p.GoMod()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tools.go"), []byte(p.toolsGo()), 0o644)
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

// GoVersion is the toolchain's version (go env GOVERSION), part of every
// build's cache key.
func GoVersion(ctx context.Context) (string, error) { return goEnv(ctx, "GOVERSION") }

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
