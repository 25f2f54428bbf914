package labcmd

import (
	"slices"
	"strings"
	"testing"
)

func TestProgress(t *testing.T) {
	type stage struct {
		name string
		code int
	}
	tests := []struct {
		name      string
		keepGoing bool
		stages    []stage
		suiteCode int
		wantRan   []string // stages run before stopping
		wantSuite bool
		wantCode  int
	}{
		{name: "all pass", stages: []stage{{"cluster", 0}, {"kamaji", 0}}, suiteCode: 0,
			wantRan: []string{"cluster", "kamaji"}, wantSuite: true, wantCode: 0},
		{name: "cases fail", stages: []stage{{"cluster", 0}, {"kamaji", 0}}, suiteCode: 1,
			wantRan: []string{"cluster", "kamaji"}, wantSuite: true, wantCode: 1},
		{name: "stage fails and stops", stages: []stage{{"cluster", 0}, {"kamaji", 3}, {"tenants", 0}},
			wantRan: []string{"cluster", "kamaji"}, wantSuite: false, wantCode: 3},
		{name: "keep going reports the first failure", keepGoing: true,
			stages:    []stage{{"cluster", 0}, {"kamaji", 3}, {"tenants", 4}, {"workers", 0}},
			suiteCode: 1,
			wantRan:   []string{"cluster", "kamaji", "tenants", "workers"}, wantSuite: true, wantCode: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Progress{KeepGoing: tt.keepGoing}
			var ran []string
			for _, s := range tt.stages {
				ran = append(ran, s.name)
				if !p.Stage(s.name, s.code) {
					break
				}
			}
			if !slices.Equal(ran, tt.wantRan) {
				t.Errorf("ran %q, want %q", ran, tt.wantRan)
			}
			if p.RunSuite() != tt.wantSuite {
				t.Errorf("RunSuite = %v, want %v", p.RunSuite(), tt.wantSuite)
			}
			if got := p.ExitCode(tt.suiteCode); got != tt.wantCode {
				t.Errorf("ExitCode = %d, want %d", got, tt.wantCode)
			}
		})
	}
}

func TestProgressRecordsBrokenSteps(t *testing.T) {
	oom := BrokenExec("kamaji", 137, true, "installing kamaji", "exit code: 137")
	lost := BrokenExec("test", 0, false, "", "bound service x (docker) exited")
	tests := []struct {
		name        string
		keepGoing   bool
		wipe        Step
		steps       []Step
		wantRan     []string
		wantSuite   bool
		wantCode    int
		wantSummary []string // "" entries: no module summary
	}{
		{name: "a killed stage stops the run even with keep-going", keepGoing: true,
			wipe:    Step{Name: "wipe"},
			steps:   []Step{{Name: "cluster"}, oom, {Name: "tenants"}},
			wantRan: []string{"cluster", "kamaji"}, wantSuite: false, wantCode: 137,
			wantSummary: []string{"`kamaji` did not finish (exit code 137)", "SIGKILL", "no later stage and no suite ran",
				"logs/kamaji.log", "installing kamaji"}},
		{name: "a lost suite keeps the first stage failure's code and names both", keepGoing: true,
			wipe:    Step{Name: "wipe"},
			steps:   []Step{{Name: "cluster"}, {Name: "kamaji", Code: 3}, {Name: "tenants"}, lost},
			wantRan: []string{"cluster", "kamaji", "tenants", "test"}, wantSuite: false, wantCode: 3,
			wantSummary: []string{"`test` did not finish (exit code 125)", "engine error", "stage `kamaji` failed (exit code 3)"}},
		{name: "a failed wipe goes on and is named when a stage fails",
			wipe:    Step{Name: "wipe", Code: 1},
			steps:   []Step{{Name: "cluster", Code: 1}, {Name: "kamaji"}},
			wantRan: []string{"cluster"}, wantSuite: false, wantCode: 1,
			wantSummary: []string{"`cluster` failed", "logs/wipe.log"}},
		{name: "a failed wipe alone does not fail the run",
			wipe:    Step{Name: "wipe", Code: 1},
			steps:   []Step{{Name: "cluster"}, {Name: "kamaji"}},
			wantRan: []string{"cluster", "kamaji"}, wantSuite: true, wantCode: 0,
			wantSummary: []string{""}},
		{name: "a broken wipe stops before any stage",
			wipe:    BrokenExec("wipe", 0, false, "", "bound service x (docker) exited"),
			steps:   []Step{{Name: "cluster"}},
			wantRan: nil, wantSuite: false, wantCode: EngineErrorCode,
			wantSummary: []string{"`wipe` did not finish"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Progress{KeepGoing: tt.keepGoing}
			var ran []string
			if p.RecordWipe(tt.wipe) {
				for _, s := range tt.steps {
					if s.Name == "test" && !p.RunSuite() {
						break
					}
					ran = append(ran, s.Name)
					if !p.Record(s) {
						break
					}
				}
			}
			if !slices.Equal(ran, tt.wantRan) {
				t.Errorf("ran %q, want %q", ran, tt.wantRan)
			}
			if p.RunSuite() != tt.wantSuite {
				t.Errorf("RunSuite = %v, want %v", p.RunSuite(), tt.wantSuite)
			}
			if got := p.ExitCode(0); got != tt.wantCode {
				t.Errorf("ExitCode = %d, want %d", got, tt.wantCode)
			}
			logs := map[string]string{"kamaji": oom.Log(), "test": lost.Log()}
			summary := p.Summary(func(step string) string { return Tail(logs[step], 40) })
			for _, w := range tt.wantSummary {
				if w == "" && summary != "" {
					t.Errorf("summary %q, want none (labctl's own stands)", summary)
				}
				if !strings.Contains(summary, w) {
					t.Errorf("summary lacks %q:\n%s", w, summary)
				}
			}
		})
	}
}

// A bundle the engine could not fetch (recorded from the first real run,
// 2026-12-06: the registry served no manifest for the worker image's pin)
// is the module's own preparation failing: its summary says so and names
// the engine's error, without the exec exit-code explanation that does not
// apply, and the run stops with EngineErrorCode.
func TestProgressRecordsSetupFailure(t *testing.T) {
	const engineErr = `fetching the lab's images, or reading their tarballs' digests (labctl images --bundle-index --archives): ` +
		`failed to resolve image "docker.io/kindest/node:v1.36.4@sha256:099e049362a1526b2db71494e1947aae99bd16290d7c895f2b7ea312e3cbfaed" ` +
		`(platform: "linux/amd64"): ` +
		`docker.io/kindest/node:v1.36.4@sha256:099e049362a1526b2db71494e1947aae99bd16290d7c895f2b7ea312e3cbfaed: not found`
	var p Progress
	if p.Record(SetupFailed("bundle", engineErr)) {
		t.Fatal("Record of a failed bundle said go on")
	}
	if p.RunSuite() {
		t.Error("RunSuite after a failed bundle")
	}
	if got := p.ExitCode(0); got != EngineErrorCode {
		t.Errorf("ExitCode = %d, want %d", got, EngineErrorCode)
	}
	summary := p.Summary(func(string) string { return "" })
	for _, w := range []string{"`bundle` did not finish (exit code 125)",
		"not done by the engine: fetching the lab's images", "not found", "prepares the lab's images"} {
		if !strings.Contains(summary, w) {
			t.Errorf("summary lacks %q:\n%s", w, summary)
		}
	}
	for _, w := range []string{"Docker-in-Docker service may have exited", "Dagger returns an exec's exit code"} {
		if strings.Contains(summary, w) {
			t.Errorf("summary of a setup failure says %q:\n%s", w, summary)
		}
	}
}
