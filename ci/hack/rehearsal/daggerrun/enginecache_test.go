package daggerrun

import (
	"os"
	"strings"
	"testing"
)

// The engine's log after the cold call of 2026-12-06 (dagger v0.21.8
// built from its tag; excerpt as recorded, see the findings' README).
const recordedGCLog = "../testdata/findings/2026-12-06-dagger-first-runs/run5-engine-gc.log"

func TestReadEngineGCFromRecordedLog(t *testing.T) {
	log, err := os.ReadFile(recordedGCLog)
	if err != nil {
		t.Fatal(err)
	}
	gc := ReadEngineGC(log)
	if gc.Sweeps != 2 || gc.Reclaimed != 8353285120+233472 {
		t.Errorf("got %d passes reclaiming %d bytes, want 2 reclaiming %d", gc.Sweeps, gc.Reclaimed, 8353285120+233472)
	}
	if len(gc.Lines) != 4 {
		t.Errorf("kept %d lines, want the 2 plan and 2 cleaned-up lines:\n%s", len(gc.Lines), strings.Join(gc.Lines, "\n"))
	}
}

func TestReadEngineGCIgnoresEmptyPasses(t *testing.T) {
	gc := ReadEngineGC([]byte("time=\"2026-12-06T03:28:41Z\" level=debug msg=\"gc cleaned up 0 bytes\"\nother line\n"))
	if gc.Sweeps != 0 || gc.Reclaimed != 0 || len(gc.Lines) != 1 {
		t.Errorf("got %+v, want no pass and the one line kept", gc)
	}
}

func TestReportSaysWhatTheCollectorDid(t *testing.T) {
	for _, c := range []struct {
		gc   *EngineGC
		want string
	}{
		{nil, ""},
		{&EngineGC{}, "reclaimed nothing"},
		{&EngineGC{Sweeps: 2, Reclaimed: 8353518592}, "reclaimed 8.35 GB in 2 passes"},
	} {
		md := Report{EngineGC: c.gc, Calls: []CallResult{{Name: "lab-test", EngineCache: 21e9, FreeDisk: 3e10}}}.Markdown()
		if c.want == "" && strings.Contains(md, "garbage collector") || c.want != "" && !strings.Contains(md, c.want) {
			t.Errorf("gc %+v: report lacks %q:\n%s", c.gc, c.want, md)
		}
		if !strings.Contains(md, "| 21.00 GB | 30.00 GB |") {
			t.Errorf("the calls table lacks the engine cache and free disk:\n%s", md)
		}
	}
}
