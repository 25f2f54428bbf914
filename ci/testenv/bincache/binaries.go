package bincache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"
)

// The file names inside the directory EnsureBinaries returns: the
// environment (ci/testenv) starts its components by them.
const (
	KubeAPIServer         = "kube-apiserver"
	KubeScheduler         = "kube-scheduler"
	KubeControllerManager = "kube-controller-manager"
	// Kubeadm is for ci/stages/kubeadmcheck, not the environment (see
	// buildPackages).
	Kubeadm     = "kubeadm"
	Etcd        = "etcd-embed"
	KWOK        = "kwok"
	ProxyServer = "proxy-server"
	ProxyAgent  = "proxy-agent"
	// KWOKStagesFile holds the stages `kwok stages` prints (KWOK has none by default).
	KWOKStagesFile = "kwok-stages.yaml"
)

// envBinDir overrides the root of the binary cache (default
// $XDG_CACHE_HOME/gpu-lab/k8sbin, or ~/.cache/gpu-lab/k8sbin).
const envBinDir = "GPU_LAB_BIN_DIR"

// envSourceDir overrides where the nested build module ci/testenv/k8sbin is
// found (needed only when labctl runs outside the repository it was built from).
const envSourceDir = "GPU_LAB_K8SBIN_SRC"

// buildPackages are built together in one `go build`, so they share one
// compilation of the Kubernetes dependency set. The konnectivity commands are
// named "server" and "agent" upstream and renamed after the build.
var buildPackages = []string{
	"k8s.io/kubernetes/cmd/kube-apiserver",
	"k8s.io/kubernetes/cmd/kube-scheduler",
	"k8s.io/kubernetes/cmd/kube-controller-manager",
	// kubeadm is not run by the environment: the stages tests validate the
	// worker join configuration with it (`kubeadm config validate`).
	"k8s.io/kubernetes/cmd/kubeadm",
	"./cmd/etcd-embed",
	"./cmd/kwok",
	"sigs.k8s.io/apiserver-network-proxy/cmd/server",
	"sigs.k8s.io/apiserver-network-proxy/cmd/agent",
}

var renames = map[string]string{"server": ProxyServer, "agent": ProxyAgent}

// ldflags strips the binaries and stamps the version: without it the servers
// report v0.0.0-master+$Format:%H$, which clients cannot parse.
func ldflags() string {
	minor := strings.Split(KubernetesVersion, ".")[1]
	flags := []string{"-s", "-w"}
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		flags = append(flags,
			"-X", pkg+".gitVersion="+KubernetesVersion,
			"-X", pkg+".gitMajor=1",
			"-X", pkg+".gitMinor="+minor,
			"-X", pkg+".gitTreeState=clean")
	}
	return strings.Join(flags, " ")
}

// EnsureBinaries returns a directory holding the environment's binaries,
// building them from the nested module ci/testenv/k8sbin the first time
// (see buildEstimate; later calls return at once). The directory is keyed
// by a hash of the module's go.mod, go.sum and sources, the Go version and
// the link flags, so a change to any of them builds afresh. A lock file
// makes concurrent callers (parallel test binaries) wait for one build.
// Modules come only through the Go module proxy configured for `go`. A
// build, or the wait for another process's build, logs a line when it
// starts, after firstProgress and then every progressEvery: a first build
// takes minutes, and silence looks like a hang.
func EnsureBinaries(ctx context.Context, log *slog.Logger) (string, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	src, err := sourceDir()
	if err != nil {
		return "", err
	}
	root, key, err := cacheEntry(ctx, src, cacheKey)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, key)
	start := time.Now()
	built := false
	err = cachedBuild(ctx, log, root, dir, src, complete, func(partial, buildLog string) error {
		built = true
		log.Info(fmt.Sprintf("building Kubernetes %s test binaries once (a first build takes %s); progress every %s",
			KubernetesVersion, buildEstimate, progressEvery), "log", buildLog, "into", dir)
		stopSpeaking := speakWhileBuilding(ctx, log, src, buildLog)
		err := goBuild(ctx, src, partial, buildLog)
		stopSpeaking()
		if err != nil && ctx.Err() != nil {
			b, _ := os.ReadFile(buildLog)
			return gaveUp(context.Cause(ctx), time.Since(start), readBuildStatus(string(b)), buildLog)
		}
		if err != nil {
			return err
		}
		for from, to := range renames {
			if err := os.Rename(filepath.Join(partial, from), filepath.Join(partial, to)); err != nil {
				return fmt.Errorf("build test binaries: %w", err)
			}
		}
		stages, err := exec.CommandContext(ctx, filepath.Join(partial, KWOK), "stages").Output()
		if err != nil {
			return fmt.Errorf("build test binaries: `kwok stages`: %w", err)
		}
		return os.WriteFile(filepath.Join(partial, KWOKStagesFile), stages, 0o644)
	})
	if err != nil {
		return "", err
	}
	if !built {
		return dir, nil
	}
	log.Info("built Kubernetes test binaries", "dir", dir, "took", time.Since(start).Round(time.Second).String())
	return dir, nil
}

func goBuild(ctx context.Context, src, out, logPath string) error {
	// -v prints each package as it is compiled: the progress lines count them.
	args := append([]string{"build", "-v", "-o", out + string(os.PathSeparator), "-ldflags", ldflags()}, buildPackages...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly -buildvcs=false")
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	fmt.Fprintf(logf, "# (cd %s && go %s)\n", src, strings.Join(args, " "))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build test binaries in %s: go build: %w; %s ends with:\n%s", src, err, logPath, TailFile(logPath, 30))
	}
	return nil
}

func complete(dir string) bool {
	for _, b := range []string{KubeAPIServer, KubeScheduler, KubeControllerManager, Etcd, KWOK, ProxyServer, ProxyAgent, KWOKStagesFile} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			return false
		}
	}
	return true
}

// sourceDir finds the nested module: $GPU_LAB_K8SBIN_SRC, next to this
// package's source directory (ci/testenv/bincache beside
// ci/testenv/k8sbin: tests, and binaries built from a checkout), or under
// a parent of the working directory.
func sourceDir() (string, error) {
	isModule := func(d string) bool {
		_, err := os.Stat(filepath.Join(d, "go.mod"))
		return err == nil
	}
	if d := os.Getenv(envSourceDir); d != "" {
		if !isModule(d) {
			return "", fmt.Errorf("%s=%s: no go.mod there; point it at ci/testenv/k8sbin of a gpu-lab checkout", envSourceDir, d)
		}
		return d, nil
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		if d := filepath.Join(filepath.Dir(file), "..", "k8sbin"); isModule(d) {
			return d, nil
		}
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			if c := filepath.Join(d, "ci", "testenv", "k8sbin"); isModule(c) {
				return c, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", fmt.Errorf("cannot find the build module ci/testenv/k8sbin: run from a gpu-lab checkout or set %s", envSourceDir)
}

// cacheKey hashes everything that changes the binaries.
func cacheKey(src, goVersion string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s/%s\n%s\n%s\n", goVersion, runtime.GOOS, runtime.GOARCH, ldflags(), strings.Join(buildPackages, " "))
	var files []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if n := d.Name(); n == "go.mod" || n == "go.sum" || strings.HasSuffix(n, ".go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hash build module %s: %w", src, err)
	}
	sort.Strings(files)
	if err := hashFiles(h, src, files); err != nil {
		return "", err
	}
	return KubernetesVersion + "-" + hex.EncodeToString(h.Sum(nil))[:16], nil
}

// hashFiles writes each file's path relative to base, then its content,
// to h: a key changes when a file is renamed as well as when it is edited.
func hashFiles(h io.Writer, base string, files []string) error {
	for _, f := range files {
		rel, _ := filepath.Rel(base, f)
		fh, err := os.Open(f)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\n", filepath.ToSlash(rel))
		_, err = io.Copy(h, fh)
		fh.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// Root is the root of the binary cache: $GPU_LAB_BIN_DIR, else
// gpu-lab/k8sbin in the user's cache directory. Every build here has an
// entry under it, and ci/testenv caches the HAMi schedulers it takes out of
// images there too.
func Root() (string, error) {
	if d := os.Getenv(envBinDir); d != "" {
		return d, nil
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("binary cache: no home directory (%w); set %s", err, envBinDir)
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "gpu-lab", "k8sbin"), nil
}

func goEnv(ctx context.Context, name string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", name).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("the Go toolchain is needed to build the test binaries: go env %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// lockFile takes an exclusive flock, polling so ctx can cancel the wait.
// While another process holds it, the progress of that process's build
// (its log is buildLog) is reported.
func lockFile(ctx context.Context, path string, log *slog.Logger, src, buildLog string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("binary cache lock %s: %w", path, err)
	}
	told := false
	stopSpeaking := func() {}
	defer func() { stopSpeaking() }()
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("binary cache lock %s: %w", path, err)
		}
		if !told {
			log.Info("waiting for another process building the test binaries", "lock", path, "log", buildLog)
			stopSpeaking = speakWhileBuilding(ctx, log, src, buildLog)
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for binary cache lock %s: %w", path, ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}
