// Package helm runs the pinned helm CLI: the command lines the lab uses
// (install or upgrade, status, pull) and how their output is read. The
// charts themselves, and what the lab sets in them, are ci/stages'.
package helm

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Version is the helm CLI the lab is tested with.
const Version = "v3.19.0"

// InstallHint tells a user how to get the pinned helm.
const InstallHint = "go install " + Package + "@" + Version

// Module is helm's Go module, and Package its CLI's main package.
const (
	Module  = "helm.sh/helm/v3"
	Package = Module + "/cmd/helm"
)

// Chart is one helm release to install.
type Chart struct {
	Release   string
	Namespace string
	Chart     string
	Repo      string
	Version   string
	// Set are --set values, in order.
	Set []string
	// ValuesFile is passed with --values when set.
	ValuesFile string
	// Wait makes helm wait for the release's resources (and hooks).
	Wait    bool
	Timeout time.Duration
	// PostRenderer is an executable and its arguments that helm pipes the
	// rendered manifests through (helm v3.19 --post-renderer and repeated
	// --post-renderer-args, cmd/helm/flags.go).
	PostRenderer []string
	// Archive, when set, is the chart's archive from an image bundle
	// (absolute path): helm installs it instead of asking Repo.
	Archive string
}

// UpgradeInstallArgs is the helm command line (without --kubeconfig) that
// installs or upgrades a release; `upgrade --install` makes it idempotent.
//
// With an Archive, helm gets its path and neither --repo nor --version: a
// chart reference that is an existing path is loaded from there and the
// version is not looked up (helm v3.19.0 pkg/action/install.go:753
// LocateChart); the bundle checked the archive's version (images.ChartArchives).
func UpgradeInstallArgs(c Chart) []string {
	args := []string{"upgrade", "--install", c.Release, c.Chart}
	if c.Archive != "" {
		args[3] = c.Archive
	} else {
		if c.Repo != "" {
			args = append(args, "--repo", c.Repo)
		}
		if c.Version != "" {
			args = append(args, "--version", c.Version)
		}
	}
	args = append(args, "--namespace", c.Namespace, "--create-namespace")
	if c.ValuesFile != "" {
		args = append(args, "--values", c.ValuesFile)
	}
	for _, s := range c.Set {
		args = append(args, "--set", s)
	}
	if c.Wait {
		args = append(args, "--wait")
	}
	if c.Timeout > 0 {
		args = append(args, "--timeout", c.Timeout.String())
	}
	if len(c.PostRenderer) > 0 {
		args = append(args, "--post-renderer", c.PostRenderer[0])
		for _, a := range c.PostRenderer[1:] {
			args = append(args, "--post-renderer-args", a)
		}
	}
	return args
}

// StatusArgs reads a release's status as JSON.
func StatusArgs(release, namespace string) []string {
	return []string{"status", release, "--namespace", namespace, "--output", "json"}
}

// Status is the part of `helm status -o json` the lab reads.
type Status struct {
	Name string `json:"name"`
	// Version is the release's revision.
	Version int `json:"version"`
	Info    struct {
		Status string `json:"status"`
	} `json:"info"`
	Chart struct {
		Metadata struct {
			Version string `json:"version"`
		} `json:"metadata"`
	} `json:"chart"`
}

// ReleaseDeployed decides whether a release is installed at the wanted
// chart version ("" accepts any).
func ReleaseDeployed(statusJSON []byte, wantVersion string) (bool, string) {
	var r Status
	if err := json.Unmarshal(statusJSON, &r); err != nil {
		return false, "unreadable helm status: " + err.Error()
	}
	cond := fmt.Sprintf("release %s %s", r.Name, r.Info.Status)
	if v := r.Chart.Metadata.Version; v != "" {
		cond += " (chart " + v + ")"
	}
	if r.Info.Status != "deployed" {
		return false, cond
	}
	if wantVersion != "" && r.Chart.Metadata.Version != "" && r.Chart.Metadata.Version != wantVersion {
		return false, cond + ", want chart " + wantVersion
	}
	return true, cond
}

// CLI runs the helm binary.
type CLI struct {
	// Bin is the helm binary; default "helm" from PATH.
	Bin string
}

func (h CLI) bin() string {
	if h.Bin != "" {
		return h.Bin
	}
	return "helm"
}

// Run runs helm against the cluster of kubeconfigPath ("" for commands
// that talk to no cluster, such as pull).
func (h CLI) Run(ctx context.Context, kubeconfigPath string, args ...string) ([]byte, error) {
	if _, err := exec.LookPath(h.bin()); err != nil {
		return nil, fmt.Errorf("helm CLI not found (%v): install the pinned one with `%s`", err, InstallHint)
	}
	full := args
	if kubeconfigPath != "" {
		full = append([]string{"--kubeconfig", kubeconfigPath}, args...)
	}
	cmd := exec.CommandContext(ctx, h.bin(), full...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return []byte(stdout.String()), fmt.Errorf("helm %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return []byte(stdout.String()), nil
}

// PullArgs is `helm pull` of one chart version from a repository into dest
// (helm v3.19.0 cmd/helm/pull.go:90 --destination, cmd/helm/flags.go:55,58
// --version and --repo; with --repo no `helm repo add` is needed).
func PullArgs(name, repo, version, dest string) []string {
	return []string{"pull", name, "--repo", repo, "--version", version, "--destination", dest}
}

// Runner runs helm against a cluster (CLI, or a test's fake).
type Runner interface {
	Run(ctx context.Context, kubeconfigPath string, args ...string) ([]byte, error)
}

// ChartPuller pulls charts with a Runner (images.ChartPuller).
type ChartPuller struct{ Helm Runner }

// PullChart runs helm pull; it needs no cluster.
func (p ChartPuller) PullChart(ctx context.Context, name, repo, version, dest string) error {
	_, err := p.Helm.Run(ctx, "", PullArgs(name, repo, version, dest)...)
	return err
}
