package chartbuild

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gobuild"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/preflight"
)

// helmVersion is the helm the charts are packaged with: the one the lab
// installs them with (ci/internal/helm Version).
const helmVersion = "v3.19.0"

// helmModule is helm v3's Go module (go.mod:1 at v3.19.0).
const helmModule = "helm.sh/helm/v3"

// helmK8sMinor is the minor of k8s.io/client-go in helm v3.19.0's go.mod
// (line 45: k8s.io/client-go v0.34.0). helm's Makefile:62-69 stamps
// 1.<that minor> into the default Capabilities.KubeVersion of `helm
// template` and into the linter's deprecation checks; without it the
// source's default is 1.20 (pkg/chartutil/capabilities.go:34-35).
const helmK8sMinor = "34"

// helmProgram builds helm the way helm v3.19.0's Makefile `build` target
// does (Makefile:81): CGO_ENABLED=0 (:27), -trimpath, no tags (:22),
// ldflags -w -s (:25), the version of the tag (:47, BINARY_VERSION is the
// exact git tag), gitTreeState clean (:58) and the Kubernetes version of
// its client-go (:66-69). The commit (:57) is not in a module zip and is
// left empty, so `helm version` prints no GitCommit.
func helmProgram() gobuild.Program {
	x := func(pkg, v string) string { return "-X " + helmModule + "/" + pkg + "=" + v }
	return gobuild.Program{
		Name:     "helm-" + helmVersion,
		Module:   helmModule,
		Version:  helmVersion,
		Packages: []string{helmModule + "/cmd/helm"},
		LDFlags: strings.Join([]string{"-w -s",
			x("internal/version.version", helmVersion),
			x("internal/version.gitTreeState", "clean"),
			x("pkg/lint/rules.k8sVersionMajor", "1"),
			x("pkg/lint/rules.k8sVersionMinor", helmK8sMinor),
			x("pkg/chartutil.k8sVersionMajor", "1"),
			x("pkg/chartutil.k8sVersionMinor", helmK8sMinor),
		}, " "),
		Trimpath: true,
		// helm v3.19.0 go.mod:3
		GoDirective: "1.24.0",
	}
}

// BuildHelm returns the helm binary, building it once through the Go module
// proxy into the rehearsal cache (root/go/helm-v3.19.0-KEY/bin/helm), and
// links it as root/bin/helm, where `rehearse run` looks for helm
// after --helm, $LABCTL_HELM and PATH (ci/hack/rehearse run.go
// findHelm).
func BuildHelm(ctx context.Context, log *slog.Logger, root string) (string, error) {
	if err := preflight.Run(ctx, "building helm", preflight.Tools(exec.LookPath, preflight.Go)); err != nil {
		return "", err
	}
	bin, err := gobuild.Build(ctx, log, root, helmProgram(), "about 10 minutes on 2 busy cores")
	if err != nil {
		return "", fmt.Errorf("helm %s: %w", helmVersion, err)
	}
	helm := filepath.Join(bin, "helm")
	if err := linkHelm(log, helm, helmLink(root)); err != nil {
		return "", err
	}
	return helm, nil
}

// helmLink is where `rehearse run` finds a maintainer's helm.
func helmLink(root string) string { return filepath.Join(root, "bin", "helm") }

// linkHelm points link at helm. A link there is replaced (an older build's);
// a file there is the maintainer's own helm and is left alone.
func linkHelm(log *slog.Logger, helm, link string) error {
	if fi, err := os.Lstat(link); err == nil && fi.Mode()&os.ModeSymlink == 0 {
		log.Info("keeping the helm already installed in the cache", "path", link, "built", helm)
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return fmt.Errorf("helm link %s: %w", link, err)
	}
	tmp := link + ".new"
	_ = os.Remove(tmp)
	if err := os.Symlink(helm, tmp); err != nil {
		return fmt.Errorf("helm link %s: %w", link, err)
	}
	if err := os.Rename(tmp, link); err != nil {
		return fmt.Errorf("helm link %s: %w", link, err)
	}
	return nil
}

// Helm runs one helm binary with a home of its own: helm's cache, config
// and data directories (helm v3.19.0 pkg/helmpath/lazypath.go:26-34,
// HELM_CACHE_HOME, HELM_CONFIG_HOME, HELM_DATA_HOME) point into Home, so no
// repository or plugin of the user's takes part and nothing of the user's
// is changed.
type Helm struct {
	Binary string
	Home   string
	// Log receives each command line and its output.
	Log *os.File
}

// env is the environment helm runs with besides the caller's.
func (h Helm) env() []string {
	return []string{
		"HELM_CACHE_HOME=" + filepath.Join(h.Home, "cache"),
		"HELM_CONFIG_HOME=" + filepath.Join(h.Home, "config"),
		"HELM_DATA_HOME=" + filepath.Join(h.Home, "data"),
	}
}

// repositoryConfig and repositoryCache are where helm looks for its
// repositories and their cached indexes under that home (helm v3.19.0
// pkg/cli/environment.go:108-109: helmpath.ConfigPath("repositories.yaml"),
// helmpath.CachePath("repository")).
func (h Helm) repositoryConfig() string {
	return filepath.Join(h.Home, "config", "repositories.yaml")
}

func (h Helm) repositoryCache() string { return filepath.Join(h.Home, "cache", "repository") }

// Run runs helm in dir and returns its standard output; a failure names the
// command and quotes its error output.
func (h Helm) Run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, h.Binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), h.env()...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if h.Log != nil {
		fmt.Fprintf(h.Log, "# (cd %s && helm %s)\n%s%s", dir, strings.Join(args, " "), tail(out.String(), 4000), errb.String())
	}
	if err != nil {
		return out.Bytes(), fmt.Errorf("helm %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "[…]" + s[len(s)-n:]
}
