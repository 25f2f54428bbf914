package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/internal/nettest"
	"github.com/gpu-lab/gpu-lab/ci/report"
	"github.com/gpu-lab/gpu-lab/ci/results"
	"github.com/gpu-lab/gpu-lab/ci/stages"
	"github.com/gpu-lab/gpu-lab/ci/suite"
)

// run hands the lab to `labctl test` in-process, with its state and report
// dirs; against an empty state dir that command's own error comes back.
func TestRunTestUsesTheTestCommand(t *testing.T) {
	dir := t.TempDir()
	test := newTestCommand(streams{out: io.Discard, errOut: io.Discard})
	err := runTest(context.Background(), test, dir, dir+"/reports", "TC-01", 2)
	if err == nil || !strings.Contains(err.Error(), "directory "+dir+" is not a labctl state dir") {
		t.Fatalf("err = %v, want labctl test's message about the state dir", err)
	}
	for flag, want := range map[string]string{"state-dir": dir, "report-dir": dir + "/reports", "run": "TC-01", "parallel": "2"} {
		if got := test.Flags().Lookup(flag).Value.String(); got != want {
			t.Errorf("labctl test --%s = %q, want %q", flag, got, want)
		}
	}
}

// TestUpFailureRun: a lab that does not come up is one failed case naming
// where it failed, and every selected case not run.
func TestUpFailureRun(t *testing.T) {
	started := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	all := len(suite.Cases())
	for _, tc := range []struct {
		name        string
		err         error
		runRe       string
		wantMessage string
		wantDetails string
		wantCases   int
	}{
		{"preflight", errors.New("preflight: cannot pull kindest/node:v1 (no host): this machine has no registry access"), "",
			"failed before any stage: preflight: cannot pull kindest/node:v1 (no host): this machine has no registry access",
			"labctl testenv up", all},
		{"stage", fmt.Errorf("%w\n(see .lab/diagnostics)",
			&stages.Error{Stage: "kamaji", Object: "Deployment kamaji", Err: errors.New("not ready")}), "TC-0[12]",
			"failed in stage kamaji: stage kamaji: Deployment kamaji: not ready", "/tmp/st/diagnostics/", 2},
		{"bad --run shows every case", errors.New("no Docker daemon answers"), "([",
			"failed before any stage: no Docker daemon answers", "", all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := upFailureRun("lab-x", "kind+kamaji+hami on the local Docker daemon", started, 3*time.Second, tc.err, "/tmp/st", tc.runRe)
			if r.OK() || r.Lab != "lab-x" || r.Schema != results.SchemaVersion || !r.Started.Equal(started) {
				t.Errorf("run header = %+v", r)
			}
			up := r.Cases[0]
			if up.ID != upCaseID || up.Status != results.Failed || up.Message != tc.wantMessage {
				t.Errorf("up case = %s %s %q, want failed with %q", up.ID, up.Status, up.Message, tc.wantMessage)
			}
			if !strings.Contains(up.Details, tc.err.Error()) || !strings.Contains(up.Details, tc.wantDetails) {
				t.Errorf("details %q lack the error or %q", up.Details, tc.wantDetails)
			}
			if got := len(r.Cases) - 1; got != tc.wantCases {
				t.Errorf("%d cases not run, want %d", got, tc.wantCases)
			}
			for _, c := range r.Cases[1:] {
				if c.Status != results.Skipped || !strings.HasPrefix(c.Message, "not run: the lab did not come up") {
					t.Errorf("case %s: %s %q", c.ID, c.Status, c.Message)
				}
			}
		})
	}
}

// TestRunWritesReportsWhenPreflightFails runs `labctl run` against a
// Docker address that refuses connections: the preflight fails and the
// reports still appear, with the failure in them.
func TestRunWritesReportsWhenPreflightFails(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DOCKER_HOST", "tcp://"+nettest.RefusingAddr(t))
	reports := filepath.Join(dir, "reports")
	out, _, err := run(t, newRunCommand, "--state-dir", filepath.Join(dir, "state"), "--report-dir", reports, "--run", "TC-01")
	if err == nil {
		t.Fatal("labctl run succeeded against a refusing Docker address")
	}
	if !strings.Contains(out, "reports written to "+reports) {
		t.Errorf("stdout does not say where the reports are: %q", out)
	}
	for _, f := range []string{report.JUnitFile, report.JSONFile, report.SummaryFile, report.HTMLFile} {
		if _, err := os.Stat(filepath.Join(reports, f)); err != nil {
			t.Errorf("report %s: %v", f, err)
		}
	}
	r, rerr := report.Read(filepath.Join(reports, report.JSONFile))
	if rerr != nil {
		t.Fatal(rerr)
	}
	firstLine, _, _ := strings.Cut(err.Error(), "\n")
	if len(r.Cases) != 2 || r.Cases[0].ID != upCaseID || r.Cases[0].Message != "failed before any stage: "+firstLine ||
		r.Cases[1].ID != "TC-01" {
		t.Errorf("results.json cases = %+v, want %s failed with the run's error, then TC-01 not run", r.Cases, upCaseID)
	}
	summary, _ := os.ReadFile(filepath.Join(reports, report.SummaryFile))
	if !strings.Contains(string(summary), upCaseID) || !strings.Contains(string(summary), "no Docker daemon answers") {
		t.Errorf("summary.md does not show the failure:\n%s", summary)
	}
}
