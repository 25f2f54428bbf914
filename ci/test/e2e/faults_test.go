package e2e

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/report"
	"github.com/gpu-lab/gpu-lab/ci/results"
	"github.com/gpu-lab/gpu-lab/ci/suite"
	"github.com/gpu-lab/gpu-lab/ci/testenv"
)

// componentFault is one component of the local environment broken while
// the suite runs (issue 10, faults during a suite run).
type componentFault struct {
	name string
	// tenant and component as testenv names them; tenant "" is etcd.
	tenant, component string
	// kill sends SIGKILL; otherwise the component is suspended and
	// resumed after the run, or, with resumeOnStop, as soon as the suite
	// has stopped the case that met it.
	kill         bool
	resumeOnStop bool
	// at is the case that meets the fault: it is made right after the case
	// created its first namespace, before any of its pods exist, so the
	// case cannot pass without the component.
	at string
	// run selects the cases: the broken ones and a healthy tenant's.
	run     string
	broken  []string
	passing []string
	// serial runs one case after the other: a fault of etcd, which serves
	// every tenant, is over before the healthy case starts.
	serial bool
	// brokenBound, when set, is the suite's Timeouts.Broken: a tenant
	// whose API server does not answer holds the failed case's
	// diagnostics and each cleanup call that long.
	brokenBound time.Duration
	// spend: the fault leaves damage, so the environment is not given
	// back (spendSeed) and is stopped and checked after it.
	spend bool
}

// On the seed lab TC-03 and TC-06 run on tenant-a's A100, TC-09 on
// tenant-b's two L4s.
var componentFaults = []componentFault{
	{name: "tenant-b's kube-scheduler suspended", tenant: "tenant-b", component: "kube-scheduler",
		at: "TC-09", run: "^TC-(06|09)$", broken: []string{"TC-09"}, passing: []string{"TC-06"}},
	{name: "tenant-a's HAMi scheduler suspended", tenant: "tenant-a", component: "hami-scheduler",
		at: "TC-06", run: "^TC-(06|09)$", broken: []string{"TC-06"}, passing: []string{"TC-09"}},
	{name: "tenant-a's bind finalizer suspended", tenant: "tenant-a", component: testenv.ComponentFinalizer,
		at: "TC-03", run: "^TC-(03|09)$", broken: []string{"TC-03"}, passing: []string{"TC-09"}},
	{name: "tenant-b's konnectivity agent suspended", tenant: "tenant-b", component: "konnectivity-agent",
		at: "TC-09", run: "^TC-(06|09)$", broken: []string{"TC-09"}, passing: []string{"TC-06"}},
	// etcd comes back as soon as the suite's health watch has stopped
	// TC-06 (which keeps what it named for health.txt), so the case's
	// diagnostics and cleanup, and TC-09 after it, find it serving. It was
	// a fixed 2 s (5 s before that): a margin a loaded machine could miss.
	{name: "etcd suspended until the case is stopped", component: "etcd", resumeOnStop: true,
		at: "TC-06", run: "^TC-(06|09)$", broken: []string{"TC-06"}, passing: []string{"TC-09"}, serial: true},
	{name: "tenant-a's API server suspended", tenant: "tenant-a", component: "kube-apiserver", brokenBound: time.Second,
		at: "TC-06", run: "^TC-(06|09)$", broken: []string{"TC-06"}, passing: []string{"TC-09"}},
	{name: "tenant-a's API server killed", tenant: "tenant-a", component: "kube-apiserver", kill: true,
		at: "TC-06", run: "^TC-(06|09)$", broken: []string{"TC-06"}, passing: []string{"TC-09"}, spend: true},
}

// faultTimeouts are far longer than a case needs, so a case that waited
// out a timeout instead of noticing the fault reads differently.
var faultTimeouts = suite.Timeouts{Bind: 45 * time.Second, Verdict: 45 * time.Second, Delete: 30 * time.Second,
	Case: 90 * time.Second, Cleanup: 30 * time.Second}

// faultBound ends a suite run that hangs; one that ends by itself is
// bounded by its case and cleanup timeouts.
const faultBound = 4 * time.Minute

// With a component killed or suspended while the suite runs, the suite
// ends by itself; the cases that need the component fail at once, naming
// it; a healthy tenant's cases pass; reports and diagnostics are written;
// the suite's namespaces are gone (or, where the API server died, named as
// left); a spent environment leaves no process and no directory.
//
// Each fault holds a whole seed-lab environment of the pool: the faults
// that are undone take turns with the package's other tests, and the one
// that leaves damage comes after them and spends the environment.
func TestSuiteSurvivesComponentFaults(t *testing.T) {
	requireEnvironments(t)
	t.Parallel()
	t.Run("undone", func(t *testing.T) {
		for _, f := range componentFaults {
			if !f.spend {
				t.Run(f.name, func(t *testing.T) {
					t.Parallel()
					testFault(t, f)
				})
			}
		}
	})
	for _, f := range componentFaults {
		if f.spend {
			t.Run(f.name, func(t *testing.T) { testFault(t, f) })
		}
	}
}

// testFault makes one fault while the suite runs and checks what it left.
func testFault(t *testing.T, f componentFault) {
	began := time.Now()
	var e *testenv.Env
	var envLog *syncLog
	if f.spend {
		e, envLog = spendSeed(t)
	} else {
		e = wholeSeed(t)
	}
	if err := e.Health(); err != nil {
		t.Fatalf("environment broken before the fault: %v", err)
	}
	run := runWithFault(t, e, f)
	if envLog != nil {
		// The environment says itself, in one line, what died.
		waitLogLine(t, envLog, componentName(f)+" exited on its own: signal: killed")
	}
	checkFaultRun(t, e, f, run)
	if f.spend {
		stopAndCheckNothingLeft(t, e)
	} else if err := e.Health(); err != nil {
		t.Errorf("the environment is not healthy after the fault was undone: %v", err)
	}
	t.Logf("%s: %s in total", f.name, time.Since(began).Round(100*time.Millisecond))
}

func componentName(f componentFault) string {
	if f.tenant == "" {
		return f.component
	}
	return f.tenant + "/" + f.component
}

// runWithFault runs the fault's cases and makes the fault when f.at has
// created its namespace. A suspended component is resumed before it
// returns (or, with f.resumeOnStop, once the suite stopped f.at).
func runWithFault(t *testing.T, e *testenv.Env, f componentFault) *results.Run {
	t.Helper()
	var (
		once    sync.Once
		faultAt time.Time
		made    atomic.Bool
		undone  = make(chan struct{})
		undo    sync.Once
	)
	resume := func() {
		undo.Do(func() {
			if !f.kill {
				if err := e.Resume(f.tenant, f.component); err != nil {
					t.Errorf("resume %s: %v", componentName(f), err)
				}
			}
			close(undone)
		})
	}
	t.Cleanup(resume)
	inject := func() {
		faultAt = time.Now()
		made.Store(true)
		var err error
		if f.kill {
			err = e.Kill(f.tenant, f.component)
		} else {
			err = e.Suspend(f.tenant, f.component)
		}
		if err != nil {
			t.Errorf("fault %s: %v", f.name, err)
		}
	}
	cfg := config(e)
	cfg.Run, cfg.Serial, cfg.Timeouts = f.run, f.serial, faultTimeouts
	if f.brokenBound > 0 {
		cfg.Timeouts.Broken = f.brokenBound
	}
	cfg.Health = e.TenantHealth
	cfg.Log = slog.New(&hookHandler{Handler: cfg.Log.Handler(), on: func(msg string, attrs map[string]string) {
		switch {
		case msg == "step" && attrs["case"] == f.at && strings.HasPrefix(attrs["msg"], "namespace "):
			once.Do(inject)
		case msg == suite.CaseStoppedMsg && f.resumeOnStop && made.Load():
			resume() // the suite logs this once the case's context has ended
		case msg == "case start" && attrs["id"] != f.at && f.resumeOnStop && made.Load():
			<-undone // the healthy case starts once the fault is over
		}
	}})
	ctx, cancel := context.WithTimeout(context.Background(), faultBound)
	defer cancel()
	run, err := suite.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	resume()
	logRun(t, run)
	if faultAt.IsZero() {
		t.Fatalf("%s never created a namespace: the fault was not made", f.at)
	}
	t.Logf("fault made %s into the run; the run took %s", faultAt.Sub(run.Started).Round(time.Millisecond),
		time.Duration(run.Duration).Round(time.Millisecond))
	return run
}

// checkFaultRun holds the run to what a fault must leave.
func checkFaultRun(t *testing.T, e *testenv.Env, f componentFault, run *results.Run) {
	t.Helper()
	if run.Interrupted {
		t.Fatalf("the suite did not end within %s by itself", faultBound)
	}
	cases := byID(run)
	name := componentName(f)
	for _, id := range f.broken {
		c := cases[id]
		if c.Status != results.Failed || !strings.Contains(c.Message, name) {
			t.Errorf("%s = %s %q, want failed naming %s", id, c.Status, c.Message, name)
		}
		for _, generic := range []string{"case timeout", "not bound within", "context deadline exceeded", "not declared unschedulable within"} {
			if strings.Contains(c.Message, generic) {
				t.Errorf("%s failed with a timeout (%q), not at once: %s", id, generic, c.Message)
			}
		}
		if !strings.Contains(c.Diagnostics["health.txt"], name) {
			t.Errorf("%s diagnostics %v: no health.txt naming %s", id, keys(c.Diagnostics), name)
		}
	}
	for _, id := range f.passing {
		if c := cases[id]; c.Status != results.Passed {
			t.Errorf("%s of a healthy tenant = %s %q, want passed", id, c.Status, c.Message)
		}
	}
	dir := t.TempDir()
	if err := report.WriteAll(dir, run); err != nil {
		t.Fatal(err)
	}
	files := []string{"junit.xml", "results.json", "summary.md", "report.html"}
	for _, id := range f.broken {
		files = append(files, filepath.Join(report.DiagnosticsDir, id, "health.txt"))
	}
	for _, name := range files {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("report %s: %v", name, err)
		}
	}
	if f.component == "kube-apiserver" {
		// Its namespaces could not be deleted: the case says which.
		ns := createdNamespace(cases[f.at], f.tenant)
		if !hasStep(cases[f.at], "cleanup: namespace "+ns+" in tenant "+f.tenant+" was not deleted", name) {
			t.Errorf("%s's steps do not say its namespace %s in %s was left: %+v", f.at, ns, f.tenant, cases[f.at].Steps)
		}
		if f.kill {
			noSuiteNamespaces(t, e, otherTenants(e, f.tenant)...)
			return
		}
		// It answers again: what the suite said it left is removed here.
		deleteNamespace(t, e, f.tenant, ns)
	}
	noSuiteNamespaces(t, e, e.Tenants()...)
}

func otherTenants(e *testenv.Env, not string) []string {
	var out []string
	for _, tn := range e.Tenants() {
		if tn != not {
			out = append(out, tn)
		}
	}
	return out
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func hasStep(c results.Case, subs ...string) bool {
	for _, s := range c.Steps {
		if containsAll(s.Message, subs) {
			return true
		}
	}
	return false
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
