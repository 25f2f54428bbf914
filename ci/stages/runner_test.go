package stages

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

type scriptStage struct {
	name   string
	done   bool
	runErr error
	log    *[]string
}

func (s *scriptStage) Name() string { return s.name }
func (s *scriptStage) Plan(*Env) ([]string, error) {
	return []string{"plan " + s.name}, nil
}
func (s *scriptStage) Check(context.Context, *Env) (bool, string, error) {
	*s.log = append(*s.log, "check "+s.name)
	return s.done, s.name + " exists", nil
}
func (s *scriptStage) Run(context.Context, *Env) (string, error) {
	*s.log = append(*s.log, "run "+s.name)
	if s.runErr != nil {
		return "", s.runErr
	}
	s.done = true
	return s.name + " created", nil
}

func scripted(log *[]string) []*scriptStage {
	var out []*scriptStage
	for _, n := range Names {
		out = append(out, &scriptStage{name: n, log: log})
	}
	return out
}

func asStages(ss []*scriptStage) []Stage {
	out := make([]Stage, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func TestRunnerRunsInOrderThenSkips(t *testing.T) {
	e, _, _, _ := testEnv(t)
	var log []string
	ss := scripted(&log)
	var events []Event
	r := &Runner{Stages: asStages(ss), OnEvent: func(ev Event) { events = append(events, ev) }}
	if err := r.Up(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, n := range Names {
		want = append(want, "check "+n, "run "+n)
	}
	if !reflect.DeepEqual(log, want) {
		t.Fatalf("first up:\n got %v\nwant %v", log, want)
	}
	recs, _ := e.State.ReadStages()
	if len(recs) != len(Names) || recs[0].Name != stageCluster || recs[0].Status != StatusDone || recs[5].Name != stageGPUs {
		t.Fatalf("records after first up = %+v", recs)
	}

	log, events = nil, nil
	if err := r.Up(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	for _, l := range log {
		if strings.HasPrefix(l, "run ") {
			t.Fatalf("second up ran a stage whose work exists: %v", log)
		}
	}
	for _, ev := range events {
		if ev.Kind != EventSkip || !strings.Contains(ev.Message, "already there") {
			t.Fatalf("second up event = %+v, want skip saying so", ev)
		}
	}
	recs, _ = e.State.ReadStages()
	for _, rec := range recs {
		if rec.Status != StatusSkipped {
			t.Errorf("record %s = %s, want skipped", rec.Name, rec.Status)
		}
	}
}

func TestRunnerOnly(t *testing.T) {
	e, _, _, _ := testEnv(t)
	var log []string
	ss := scripted(&log)
	r := &Runner{Stages: asStages(ss), Only: stageHAMi}
	err := r.Up(context.Background(), e)
	if err == nil || !strings.Contains(err.Error(), "needs stage cluster") {
		t.Fatalf("--only hami on an empty state dir: err = %v", err)
	}
	if len(log) != 0 {
		t.Fatalf("nothing may run when a prerequisite is missing: %v", log)
	}
	if err := (&Runner{Stages: asStages(ss)}).Up(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	log = nil
	ss[4].done = false // hami's work disappeared
	if err := r.Up(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(log, []string{"check hami", "run hami"}) {
		t.Fatalf("--only hami touched other stages: %v", log)
	}
	if err := (&Runner{Stages: asStages(ss), Only: "nope"}).Up(context.Background(), e); err == nil {
		t.Fatal("--only nope: want error")
	}
}

func TestRunnerFailure(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keep=%v", keep), func(t *testing.T) {
			e, _, _, _ := testEnv(t)
			var log []string
			ss := scripted(&log)
			cause := errors.New("not ready after 6m0s")
			ss[2].runErr = fail(stageTenants, "TenantControlPlane tenant-a/tenant-a", "status Provisioning", cause)
			var diagnosed *Error
			var diagDir string
			tornDown := false
			r := &Runner{Stages: asStages(ss), Keep: keep,
				Diagnose: func(_ context.Context, f *Error, dir string) error {
					diagnosed, diagDir = f, dir
					return os.WriteFile(dir+"/error.txt", []byte(f.Error()), 0o644)
				},
				Teardown: func(context.Context) error { tornDown = true; return nil },
			}
			err := r.Up(context.Background(), e)
			var se *Error
			if !errors.As(err, &se) || !errors.Is(err, cause) {
				t.Fatalf("err = %v, want a stage error wrapping the cause", err)
			}
			msg := err.Error()
			for _, part := range []string{"stage tenants", "TenantControlPlane tenant-a/tenant-a", "last seen: status Provisioning",
				"not ready after"} {
				if !strings.Contains(msg, part) {
					t.Errorf("error %q lacks %q", msg, part)
				}
			}
			for _, l := range log {
				if l == "check workers" || l == "run workers" {
					t.Fatalf("a stage after the failure ran: %v", log)
				}
			}
			if diagnosed == nil || diagnosed.Stage != stageTenants {
				t.Fatalf("diagnostics not collected for the failed stage: %+v", diagnosed)
			}
			if !strings.HasPrefix(diagDir, string(e.State)+"/diagnostics/tenants-") {
				t.Errorf("diagnostics dir %s not under the state dir", diagDir)
			}
			if _, err := os.Stat(diagDir + "/error.txt"); err != nil {
				t.Error(err)
			}
			if tornDown == keep {
				t.Errorf("teardown ran = %v with keep = %v", tornDown, keep)
			}
			recs, _ := e.State.ReadStages()
			if len(recs) != 3 || recs[2].Status != StatusFailed || !strings.Contains(recs[2].Message, "status Provisioning") {
				t.Errorf("records = %+v", recs)
			}
		})
	}
}

func TestRunnerPlan(t *testing.T) {
	e, _, _, _ := testEnv(t)
	var log []string
	var lines []string
	r := &Runner{Stages: asStages(scripted(&log)), OnEvent: func(ev Event) { lines = append(lines, ev.Lines...) }}
	if err := r.Plan(e); err != nil {
		t.Fatal(err)
	}
	if len(log) != 0 {
		t.Fatalf("plan checked or ran stages: %v", log)
	}
	if len(lines) != 6 || lines[0] != "plan cluster" {
		t.Fatalf("plan lines = %v", lines)
	}
}
