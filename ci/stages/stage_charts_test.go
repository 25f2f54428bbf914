package stages

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/images/chartstest"
	"github.com/gpu-lab/gpu-lab/ci/internal/helm"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

func TestChartInstallArgsFromABundle(t *testing.T) {
	c := KamajiChart(lab.Default(), 10*time.Minute)
	c.Archive = "/b/charts/kamaji-0.0.0+latest.tgz"
	want := "upgrade --install kamaji /b/charts/kamaji-0.0.0+latest.tgz --namespace kamaji-system --create-namespace" +
		" --set image.tag=26.8.2-edge --set image.pullPolicy=IfNotPresent --set resources=null" +
		" --set telemetry.disabled=true" +
		" --set kamaji-etcd.image.repository=quay.io/coreos/etcd --set kamaji-etcd.image.tag=v3.6.12" +
		" --set kamaji-etcd.image.pullPolicy=IfNotPresent --set kamaji-etcd.jobs.kubectl.image=clastix/kubectl" +
		" --set kamaji-etcd.jobs.kubectl.tag=v1.35 --set kamaji-etcd.jobs.etcd.image=quay.io/coreos/etcd" +
		" --set kamaji-etcd.jobs.etcd.tag=v3.5.6 --set kamaji-etcd.jobs.etcd.pullPolicy=IfNotPresent --wait" +
		" --timeout 10m0s"
	if got := strings.Join(helm.UpgradeInstallArgs(c), " "); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := helm.PullArgs("kamaji", images.ClastixRepo, "0.0.0+latest", "/b/charts/.pull-1"); !reflect.DeepEqual(got, []string{
		"pull", "kamaji", "--repo", "https://clastix.github.io/charts", "--version", "0.0.0+latest", "--destination", "/b/charts/.pull-1"}) {
		t.Errorf("PullArgs = %q", got)
	}
}

// TestPinnedChartsAreEveryChartTheStagesInstall: whatever chart a stage's
// plan installs from a repository is in charts.Pinned, at the same version,
// and nothing else is.
func TestPinnedChartsAreEveryChartTheStagesInstall(t *testing.T) {
	e, _, _, _ := testEnv(t)
	var lines []string
	r := &Runner{Stages: All(), OnEvent: func(ev Event) { lines = append(lines, ev.Lines...) }}
	if err := r.Plan(e); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`upgrade --install \S+ (\S+) --repo (\S+) --version (\S+)`)
	var planned []string
	for _, l := range lines {
		for _, m := range re.FindAllStringSubmatch(l, -1) {
			c := m[1] + " " + m[2] + " " + m[3]
			if !slices.Contains(planned, c) {
				planned = append(planned, c)
			}
		}
	}
	var bundled []string
	for _, c := range images.PinnedCharts(e.Lab) {
		bundled = append(bundled, c.Name+" "+c.Repo+" "+c.Version)
	}
	slices.Sort(planned)
	slices.Sort(bundled)
	if len(planned) != 3 || !slices.Equal(planned, bundled) {
		t.Errorf("stages install %q, charts.Pinned has %q", planned, bundled)
	}
}

// TestStagesInstallTheBundledCharts: with chart archives in the bundle, the
// kamaji stage runs helm on them and never names a repository; so does the
// hami stage's plan (the same chart the stage runs).
func TestStagesInstallTheBundledCharts(t *testing.T) {
	e, _, _, mc := managementUp(t)
	h := &okHelm{}
	e.Helm = h
	e.Preload = &Preload{Charts: map[string]string{
		"cert-manager": "/b/charts/cert-manager-v1.18.3.tgz",
		"kamaji":       "/b/charts/kamaji-0.0.0+latest.tgz",
		"hami":         "/b/charts/hami-2.10.0.tgz",
	}}
	ctx := context.Background()
	seedKamajiReady(ctx, mc)
	if _, err := (kamajiStage{}).Run(ctx, e); err != nil {
		t.Fatal(err)
	}
	// Each install first reads the release's status (helmInstall).
	h.calls = slices.DeleteFunc(h.calls, func(c string) bool { return strings.HasPrefix(c, "management.yaml: status ") })
	if len(h.calls) != 2 ||
		!strings.HasPrefix(h.calls[0], "management.yaml: upgrade --install cert-manager /b/charts/cert-manager-v1.18.3.tgz --namespace") ||
		!strings.HasPrefix(h.calls[1], "management.yaml: upgrade --install kamaji /b/charts/kamaji-0.0.0+latest.tgz --namespace") {
		t.Errorf("helm calls = %q", h.calls)
	}
	plan, err := hamiStage{}.Plan(e)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(append(h.calls, plan...), "\n")
	if strings.Contains(text, "--repo") || strings.Count(text, "upgrade --install hami /b/charts/hami-2.10.0.tgz ") != len(e.Lab.Tenants) {
		t.Errorf("charts from a bundle still name a repository, or HAMi is not installed from it:\n%s", text)
	}
}

// TestHelmCLIPullsIntoTheBundle: labctl's helm edge with a stand-in helm
// binary that does what `helm pull --destination` does (writes the archive
// named after the repository's URL); the bundle ends up with the archive
// under the chart's own name, and no --kubeconfig is passed for a pull.
func TestHelmCLIPullsIntoTheBundle(t *testing.T) {
	bin := t.TempDir()
	archive := filepath.Join(bin, "served.tgz")
	chartstest.Write(t, archive, chartstest.Chart("hami", "2.10.0"))
	argsFile := filepath.Join(bin, "args")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + argsFile + "\n" +
		"while [ $# -gt 0 ]; do [ \"$1\" = --destination ] && cp " + archive + " \"$2/hami-2.10.0-release.tgz\"; shift; done\n"
	helmBin := filepath.Join(bin, "helm")
	if err := os.WriteFile(helmBin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	entries, err := images.SaveCharts(context.Background(), helm.ChartPuller{Helm: helm.CLI{Bin: helmBin}},
		[]images.Chart{{Name: "hami", Repo: "https://project-hami.github.io/HAMi/", Version: "2.10.0"}}, dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	args, _ := os.ReadFile(argsFile)
	got := strings.Fields(string(args))
	if len(got) != 8 || got[0] != "pull" || slices.Contains(got, "--kubeconfig") ||
		!strings.HasPrefix(got[7], filepath.Join(dir, images.ChartsDir)) {
		t.Errorf("helm was run with %q", got)
	}
	if len(entries) != 1 || entries[0].File != "hami-2.10.0.tgz" {
		t.Fatalf("entries = %+v", entries)
	}
	if _, err := os.Stat(filepath.Join(dir, images.ChartsDir, "hami-2.10.0.tgz")); err != nil {
		t.Error(err)
	}
}
