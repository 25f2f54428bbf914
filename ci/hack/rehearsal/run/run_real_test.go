package run

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
)

// The real rehearsal's inputs (opt-in, with hostdaemon.RehearsalEnv=1):
// the bundle, and where to keep the reports (a temporary directory when
// unset).
const (
	BundleEnv  = "GPU_LAB_REHEARSAL_BUNDLE"
	ReportsEnv = "GPU_LAB_REHEARSAL_REPORTS"
)

// The real lab, end to end, on the private daemon: labctl built from this
// checkout (CGO_ENABLED=0, as labctl up ships it into the workers), the
// seed lab, the maintainer's bundle and charts. Takes hours cold; run it
// as `GPU_LAB_REHEARSAL=1 GPU_LAB_REHEARSAL_BUNDLE=… go test -run
// TestRealRehearsal -timeout 5h -v ./ci/hack/rehearsal/run/`.
func TestRealRehearsal(t *testing.T) {
	bundle := os.Getenv(BundleEnv)
	if os.Getenv(hostdaemon.RehearsalEnv) != "1" || bundle == "" {
		t.Skipf("skipping: set %s=1 and %s to a bundle (rehearse images) to run the real lab", hostdaemon.RehearsalEnv, BundleEnv)
	}
	work := t.TempDir()
	labctl := filepath.Join(work, "labctl")
	build := exec.Command("go", "build", "-o", labctl, "github.com/gpu-lab/gpu-lab/ci/cmd/labctl")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build labctl: %v\n%s", err, out)
	}
	cache, err := hostdaemon.DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	cache = filepath.Dir(cache)
	helm := os.Getenv("LABCTL_HELM")
	if helm == "" {
		helm = filepath.Join(cache, "bin", "helm")
	}
	reports := os.Getenv(ReportsEnv)
	if reports == "" {
		reports = filepath.Join(work, "reports")
	}
	p := Paths{
		Labctl: labctl, Helm: helm, Bundle: bundle, State: filepath.Join(work, "state"), Reports: reports,
		Netns: hostdaemon.DefaultNetns + "-test", Daemon: hostdaemon.Layout{Dir: filepath.Join(work, "daemon")},
	}
	o := Options{Paths: p, Log: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	if st, err := os.Stat(DefaultChartsDir(cache)); err == nil && st.IsDir() {
		o.Charts = DefaultChartsDir(cache)
	}
	d := Deps{Exec: Processes{}, Daemon: PrivateDaemon{Dir: p.Daemon.Dir, Netns: p.Netns, Log: o.Log}, Probe: HostProbe{}}
	rep, err := Run(context.Background(), o, d)
	t.Logf("rehearsal report %s:\n%s", filepath.Join(reports, ReportFile), rep.markdown())
	if err != nil {
		t.Fatal(err)
	}
	if err := hostdaemon.Leftovers(p.Daemon, p.Netns); err != nil {
		t.Error(err)
	}
}
