package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/state"
)

func TestUpTimelineReadsTheStepsOfTheUpLog(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "labctl-up.log")
	lines := `time=2026-12-07T18:00:00.000Z level=INFO msg="stage started" stage=gpus
time=2026-12-07T18:00:00.000Z level=DEBUG msg="step started" stage=gpus step="tenant a: wait DaemonSet"
time=2026-12-07T18:00:04.000Z level=DEBUG msg="step done" stage=gpus step="tenant a: wait DaemonSet" took=4s
`
	if err := os.WriteFile(log, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	got := upTimeline(log, []state.StageRecord{{Name: "gpus"}})
	if !strings.Contains(got, "- **gpus** 4.0 s: tenant a: wait DaemonSet (4.0 s)") {
		t.Errorf("timeline = %q", got)
	}
	if got := upTimeline(filepath.Join(dir, "absent.log"), nil); !strings.HasPrefix(got, "The steps were not read: ") {
		t.Errorf("timeline of an absent log = %q", got)
	}
}
