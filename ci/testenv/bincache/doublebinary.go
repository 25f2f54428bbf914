package bincache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// EnsureDoubleBinary returns a labctl binary built from this checkout, whose
// hidden `labctl internal hami-double` command is the HAMi protocol double with
// HAMi's command line. It is built once per content of the root module's
// go.mod, go.sum and non-test files under ci/ (and the Go version)
// into the binary cache, under the same lock discipline as EnsureBinaries,
// so `go test` needs no setup; `labctl testenv up` passes itself instead.
func EnsureDoubleBinary(ctx context.Context, log *slog.Logger) (string, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	src, err := rootModuleDir()
	if err != nil {
		return "", err
	}
	root, key, err := cacheEntry(ctx, src, labctlKey)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "labctl-"+key)
	bin := filepath.Join(dir, "labctl")
	hasBin := func(d string) bool {
		_, err := os.Stat(filepath.Join(d, "labctl"))
		return err == nil
	}
	start := time.Now()
	built := false
	err = cachedBuild(ctx, log, root, dir, src, hasBin, func(partial, buildLog string) error {
		built = true
		log.Info("building labctl for the HAMi protocol double (labctl internal hami-double)", "into", dir, "log", buildLog)
		args := []string{"build", "-o", filepath.Join(partial, "labctl"), "./ci/cmd/labctl"}
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly -buildvcs=false")
		out, err := cmd.CombinedOutput()
		_ = os.WriteFile(buildLog, append([]byte(fmt.Sprintf("# (cd %s && go %s)\n", src, strings.Join(args, " "))), out...), 0o644)
		if err != nil {
			return fmt.Errorf("build labctl for the HAMi protocol double in %s: %w; %s ends with:\n%s", src, err, buildLog, TailFile(buildLog, 30))
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if !built {
		return bin, nil
	}
	log.Info("built labctl", "bin", bin, "took", time.Since(start).Round(time.Second).String())
	pruneDoubleBinaries(root, filepath.Base(dir))
	return bin, nil
}

// staleDoubleBinary is how long a labctl build of other sources is kept:
// every change under ci/ makes a new one (tens of MB), and a process that
// chose an older one has long started it by then (a running binary may be
// removed).
const staleDoubleBinary = time.Hour

// pruneDoubleBinaries removes labctl builds other than keep that were not
// modified for staleDoubleBinary, with their logs and lock files.
func pruneDoubleBinaries(root, keep string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "labctl-") || strings.HasPrefix(name, keep) {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleDoubleBinary {
			_ = os.RemoveAll(filepath.Join(root, name))
		}
	}
}

// rootModuleDir finds the gpu-lab checkout: three directories above this
// package's source (ci/testenv/bincache), or a parent of the working
// directory with ci/cmd/labctl.
func rootModuleDir() (string, error) {
	isRoot := func(d string) bool {
		_, err := os.Stat(filepath.Join(d, "ci", "cmd", "labctl", "main.go"))
		return err == nil
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		if d := filepath.Join(filepath.Dir(file), "..", "..", ".."); isRoot(d) {
			return d, nil
		}
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			if isRoot(d) {
				return d, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", fmt.Errorf("cannot find a gpu-lab checkout to build labctl for the HAMi protocol double: run from one, or pass testenv's " +
		"Options.DoubleBinary (a labctl binary)")
}

// labctlKey hashes what labctl is built from.
func labctlKey(src, goVersion string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
	files := []string{filepath.Join(src, "go.mod"), filepath.Join(src, "go.sum")}
	nested := filepath.Join(src, "ci", "testenv", "k8sbin")
	err := filepath.WalkDir(filepath.Join(src, "ci"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == nested || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		// Every file, not only Go sources: go:embed takes others.
		if !strings.HasSuffix(d.Name(), "_test.go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hash labctl's sources in %s: %w", src, err)
	}
	sort.Strings(files[2:])
	if err := hashFiles(h, src, files); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
