package run

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// labctl up fails a stage: the suite does not run, the error names the
// step and labctl's own stage message, the lab's diagnostics and the
// daemon's logs are kept in the reports, and everything is still removed.
func TestRunUpFails(t *testing.T) {
	w := &world{t: t, exit: map[step]int{stepUp: 1}}
	o, d := setup(t, w)
	rep, err := Run(context.Background(), o, d)
	if err == nil {
		t.Fatal("Run succeeded although labctl up failed")
	}
	for _, want := range []string{"labctl up failed (exit 1)", "TenantControlPlane kamaji-system/tenant-a not Ready",
		filepath.Join(o.Reports, diagnosticsDir)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if want := []string{"daemon start", "labctl up", "labctl down", "daemon stop"}; !slices.Equal(w.events, want) {
		t.Errorf("events %q, want %q", w.events, want)
	}
	for _, kept := range []string{
		filepath.Join(diagnosticsDir, "tenants-20261202T150000Z", "tcp.yaml"),
		filepath.Join(daemonLogsDir, "dockerd.log"),
		stagesFile, "labctl-up.log", ReportFile,
	} {
		if _, err := os.Stat(filepath.Join(o.Reports, kept)); err != nil {
			t.Errorf("reports lack %s: %v", kept, err)
		}
	}
	if _, err := os.Stat(o.State); !os.IsNotExist(err) {
		t.Errorf("state directory left behind (%v)", err)
	}
	md := rep.markdown()
	for _, want := range []string{"**The rehearsal did not finish:** labctl up failed", "| tenants | failed | 5m0s |",
		"The suite did not run", "## Last lines of labctl up", "labctl: stage tenants:"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}
