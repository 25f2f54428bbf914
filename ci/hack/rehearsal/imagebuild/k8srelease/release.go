// Package k8srelease builds the Kubernetes release binaries of one
// version the way upstream's hack/lib/golang.sh does, in module mode from
// the Go module proxy: k8s.io/kubernetes@<version> with its staging modules
// at the matching published v0 versions, static, trimmed, with upstream's
// build tags and version stamp.
package k8srelease

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gobuild"
)

// commands are the release binaries a kind node and the lab's component
// images need (hack/lib/golang.sh kube::golang::server_targets at v1.37.0:
// lines 69-83, plus kubectl), and kube-log-runner, which upstream's server
// images carry as /go-runner (build/server-image/Dockerfile:24).
var commands = []string{
	"k8s.io/kubernetes/cmd/kube-apiserver",
	"k8s.io/kubernetes/cmd/kube-controller-manager",
	"k8s.io/kubernetes/cmd/kube-scheduler",
	"k8s.io/kubernetes/cmd/kube-proxy",
	"k8s.io/kubernetes/cmd/kubelet",
	"k8s.io/kubernetes/cmd/kubeadm",
	"k8s.io/kubernetes/cmd/kubectl",
	"k8s.io/component-base/logs/kube-log-runner",
}

// tags are upstream's build tags for a non-debug build: hack/lib/golang.sh
// v1.37.0:953 gotags="selinux,notest${grpcnotrace}", grpcnotrace set at
// :949 when DBG is not 1.
var tags = []string{"selinux", "notest", "grpcnotrace"}

// ldFlags stamps the version as hack/lib/version.sh v1.37.0:151-182
// (kube::version::ldflags) does, for both k8s.io/client-go/pkg/version and
// k8s.io/component-base/version: buildDate, gitVersion, gitMajor, gitMinor;
// gitCommit and gitTreeState only when the commit is known (:167-170),
// which a module zip does not tell. hack/lib/golang.sh:936 prefixes "all="
// and :946 appends "-s -w" for a non-debug build.
func ldFlags(version string, buildDate time.Time) (string, error) {
	major, minor, err := majorMinor(version)
	if err != nil {
		return "", err
	}
	date := buildDate.UTC().Format("2006-01-02T15:04:05Z")
	var flags []string
	add := func(key, val string) {
		for _, pkg := range []string{"k8s.io/client-go/pkg/version", "k8s.io/component-base/version"} {
			flags = append(flags, fmt.Sprintf("-X '%s.%s=%s'", pkg, key, val))
		}
	}
	add("buildDate", date)
	add("gitVersion", version)
	add("gitMajor", major)
	add("gitMinor", minor)
	return "all=" + strings.Join(flags, " ") + " -s -w", nil
}

// majorMinor splits "v1.37.0" into "1" and "37".
func majorMinor(version string) (string, string, error) {
	parts := strings.SplitN(strings.TrimPrefix(version, "v"), ".", 3)
	if !strings.HasPrefix(version, "v") || len(parts) != 3 || parts[0] == "" || parts[1] == "" {
		return "", "", fmt.Errorf("kubernetes version %q: want vMAJOR.MINOR.PATCH", version)
	}
	return parts[0], parts[1], nil
}

// stagingVersion is the published version of the staging modules of a
// Kubernetes release: v1.37.0 → v0.37.0.
func stagingVersion(version string) string { return "v0" + strings.TrimPrefix(version, "v1") }

// program is the build of version's binaries, given upstream's go.mod
// facts and the release's date (the module's publication time: upstream
// stamps the build time, hack/lib/version.sh:166, and a fixed date keeps
// the cache key stable).
//
// Every command is static (CGO_ENABLED=0). Upstream builds all of them so
// except the kubelet (hack/lib/golang.sh:323-336 KUBE_STATIC_BINARIES lacks
// kubelet; :850 builds the others with CGO_ENABLED=0): a second, cgo build
// of the kubelet's dependency graph would double the longest build on two
// cores, so the rehearsal lists the static kubelet as a difference.
func program(version string, facts gobuild.GoModFacts, released time.Time) (gobuild.Program, error) {
	ld, err := ldFlags(version, released)
	if err != nil {
		return gobuild.Program{}, err
	}
	if len(facts.Staging) == 0 {
		return gobuild.Program{}, fmt.Errorf("k8s.io/kubernetes@%s: its go.mod replaces no ./staging modules; has the layout changed?", version)
	}
	replace := map[string]string{}
	for _, m := range facts.Staging {
		replace[m] = stagingVersion(version)
	}
	return gobuild.Program{
		Name:        "kubernetes-" + version,
		Module:      "k8s.io/kubernetes",
		Version:     version,
		Replace:     replace,
		Packages:    commands,
		LDFlags:     ld,
		Tags:        tags,
		Trimpath:    true, // hack/lib/golang.sh:947
		GoDirective: facts.Go,
		Godebug:     facts.Godebug,
	}, nil
}

// estimate is what first builds of one version took on 2 cores: it is
// said with every progress line, so that a slow build is read against the
// machine's load rather than taken for a hang.
const estimate = "13-18 min on 2 cores beside at most one other build, over an hour when they are shared with more"

// Build builds (or finds in the cache under root) version's binaries and
// returns their directory.
func Build(ctx context.Context, log *slog.Logger, root, version string) (string, error) {
	m, err := gobuild.Download(ctx, "k8s.io/kubernetes", version)
	if err != nil {
		return "", fmt.Errorf("kubernetes %s release binaries: %w", version, err)
	}
	facts, err := gobuild.ReadGoModFacts(m.GoMod)
	if err != nil {
		return "", fmt.Errorf("kubernetes %s release binaries: %w", version, err)
	}
	p, err := program(version, facts, m.Time)
	if err != nil {
		return "", err
	}
	return gobuild.Build(ctx, log, root, p, estimate)
}
