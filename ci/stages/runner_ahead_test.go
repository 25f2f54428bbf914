package stages

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
)

// syncLog is what the stages below did, in order, from the runner's
// goroutine and the background's.
type syncLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *syncLog) add(s string) { l.mu.Lock(); l.lines = append(l.lines, s); l.mu.Unlock() }

func (l *syncLog) get() []string { l.mu.Lock(); defer l.mu.Unlock(); return slices.Clone(l.lines) }

// pipeStage is a stage whose Run waits for hold (when set); workers also
// has an early step, which the runner may begin ahead (aheadStage).
type pipeStage struct {
	name   string
	done   bool
	log    *syncLog
	hold   func(ctx context.Context) error
	early  func(ctx context.Context) error // workers only
	begun  steps.Step                      // the early step as begun ahead
	isCopy bool
}

func (s *pipeStage) Name() string                { return s.name }
func (s *pipeStage) Plan(*Env) ([]string, error) { return []string{"plan " + s.name}, nil }
func (s *pipeStage) Check(context.Context, *Env) (bool, string, error) {
	s.log.add("check " + s.name)
	return s.done, s.name + " exists", nil
}

func (s *pipeStage) Run(ctx context.Context, _ *Env) (string, error) {
	if s.early != nil {
		first := s.begun
		if !s.isCopy {
			first = s.earlyStep()
		}
		if err := first.Run(ctx, steps.Options{}); err != nil {
			return "", err
		}
	}
	s.log.add("run " + s.name)
	if s.hold != nil {
		if err := s.hold(ctx); err != nil {
			return "", err
		}
	}
	return s.name + " created", nil
}

func (s *pipeStage) earlyStep() steps.Step {
	return steps.Once(steps.Do(func(ctx context.Context) error {
		s.log.add("early " + s.name)
		return s.early(ctx)
	}, "early "+s.name))
}

// pipeAhead is the workers pipeStage as an aheadStage.
type pipeAhead struct{ *pipeStage }

func (s pipeAhead) ahead(*Env) (ahead, error) {
	run := *s.pipeStage
	run.begun, run.isCopy = s.earlyStep(), true
	return ahead{After: stageCluster, What: "its early step", Steps: run.begun, Stage: &run}, nil
}

// pipeline is the six stages, none done, workers with an early step that
// returns at once; tests change them before the run.
func pipeline(log *syncLog) (map[string]*pipeStage, []Stage) {
	by := map[string]*pipeStage{}
	var out []Stage
	for _, n := range Names {
		s := &pipeStage{name: n, log: log}
		by[n] = s
		if n == stageWorkers {
			s.early = func(context.Context) error { return nil }
			out = append(out, pipeAhead{s})
			continue
		}
		out = append(out, s)
	}
	return by, out
}

// infos are the runner's info events.
func infos(events []Event) []string {
	var out []string
	for _, ev := range events {
		if ev.Kind == EventInfo {
			out = append(out, ev.Stage+": "+ev.Message)
		}
	}
	return out
}

// TestRunnerBeginsWorkersBesideKamaji: the workers' early step begins
// while Kamaji installs — the kamaji stage finishes only once it has
// begun, so a runner that does it in turn runs into failureBound — is done
// once, and is finished before the workers stage checks its work.
func TestRunnerBeginsWorkersBesideKamaji(t *testing.T) {
	e, _, _, _ := testEnv(t)
	var log syncLog
	by, ss := pipeline(&log)
	by[stageCluster].done = true
	began := make(chan struct{})
	by[stageWorkers].early = func(context.Context) error { close(began); return nil }
	by[stageKamaji].hold = func(ctx context.Context) error {
		select {
		case <-began:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), failureBound)
	defer cancel()
	var events []Event
	r := &Runner{Stages: ss, OnEvent: func(ev Event) { events = append(events, ev) }}
	if err := r.Up(ctx, e); err != nil {
		t.Fatalf("the workers' early step did not run beside kamaji: %v (log %q)", err, log.get())
	}
	got := log.get()
	if n := slices.Index(got, "early workers"); n < 0 || n > slices.Index(got, "check workers") ||
		slices.Index(got, "early workers") != slices.IndexFunc(got, func(l string) bool { return strings.HasPrefix(l, "early") }) {
		t.Errorf("log %q: want the early step before the workers' check", got)
	}
	if c := count(got, "early workers"); c != 1 {
		t.Errorf("the early step ran %d times, want once: %q", c, got)
	}
	want := "workers: begun in the background beside stage kamaji: its early step"
	if i := infos(events); !slices.Equal(i, []string{want}) {
		t.Errorf("info events %q, want %q", i, want)
	}
}

// TestRunnerBeginsNothingAheadWhenNothingBetweenRuns: with kamaji there,
// the early step begins beside tenants; with every stage before workers
// there, or --only workers, the workers stage does it itself, after its
// check, and nothing is said about a background.
func TestRunnerBeginsNothingAheadWhenNothingBetweenRuns(t *testing.T) {
	for _, c := range []struct {
		name, only string
		done       []string
		beside     string // "" for no background
	}{
		{"kamaji there", "", []string{stageCluster, stageKamaji}, stageTenants},
		{"all before workers there", "", []string{stageCluster, stageKamaji, stageTenants}, ""},
		{"only workers", stageWorkers, []string{stageCluster, stageKamaji, stageTenants}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, _, _, _ := testEnv(t)
			var log syncLog
			by, ss := pipeline(&log)
			if c.only != "" { // --only needs the stages before recorded as done
				if err := (&Runner{Stages: ss}).Up(context.Background(), e); err != nil {
					t.Fatal(err)
				}
				log = syncLog{}
			}
			for _, n := range c.done {
				by[n].done = true
			}
			var events []Event
			r := &Runner{Stages: ss, Only: c.only, OnEvent: func(ev Event) { events = append(events, ev) }}
			if err := r.Up(context.Background(), e); err != nil {
				t.Fatal(err)
			}
			got := log.get()
			if count(got, "early workers") != 1 {
				t.Fatalf("log %q: want the early step once", got)
			}
			inTurn := slices.Index(got, "early workers") > slices.Index(got, "check workers")
			if c.beside == "" && (!inTurn || len(infos(events)) != 0) {
				t.Errorf("log %q, infos %q: want the early step in the stage's own turn, nothing said", got, infos(events))
			}
			if c.beside != "" && (inTurn || !strings.Contains(strings.Join(infos(events), "\n"), "beside stage "+c.beside)) {
				t.Errorf("log %q, infos %q: want the early step begun beside %s", got, infos(events), c.beside)
			}
		})
	}
}

// TestRunnerStopsTheBackgroundBeforeDiagnostics: kamaji fails while the
// workers' early step runs; the step is cancelled and has returned before
// the diagnostics and the teardown begin, and kamaji's failure is the one
// reported.
func TestRunnerStopsTheBackgroundBeforeDiagnostics(t *testing.T) {
	e, _, _, _ := testEnv(t)
	var log syncLog
	by, ss := pipeline(&log)
	by[stageCluster].done = true
	began, returned := make(chan struct{}), make(chan struct{})
	by[stageWorkers].early = func(ctx context.Context) error {
		close(began)
		<-ctx.Done()
		time.Sleep(100 * time.Millisecond) // a docker run that takes a moment to return when cancelled
		close(returned)
		return ctx.Err()
	}
	cause := errors.New("webhook not ready")
	by[stageKamaji].hold = func(ctx context.Context) error {
		select {
		case <-began:
		case <-ctx.Done(): // nothing began beside kamaji: failureBound
		}
		return fail(stageKamaji, "helm release cert-manager/cert-manager", "", cause)
	}
	finished := func() bool {
		select {
		case <-returned:
			return true
		default:
			return false
		}
	}
	var atDiagnose, atTeardown bool
	ctx, cancel := context.WithTimeout(context.Background(), failureBound)
	defer cancel()
	r := &Runner{Stages: ss,
		Diagnose: func(context.Context, *Error, string) error { atDiagnose = finished(); return nil },
		Teardown: func(context.Context) error { atTeardown = finished(); return nil },
	}
	err := r.Up(ctx, e)
	var se *Error
	if ctx.Err() != nil {
		t.Fatalf("the workers' early step did not begin beside kamaji: %v", err)
	}
	if !errors.As(err, &se) || se.Stage != stageKamaji || !errors.Is(err, cause) {
		t.Fatalf("err = %v, want kamaji's failure", err)
	}
	if !atDiagnose || !atTeardown {
		t.Errorf("the background step had returned: at the diagnostics %v, at the teardown %v; want both", atDiagnose, atTeardown)
	}
}

// TestRunnerReportsAFailureInTheBackgroundAsItsStage: the workers' early
// step fails while Kamaji installs. Kamaji is stopped at once, and the run
// reports the workers stage's failure, naming its object, with its record
// and its diagnostics; no stage after kamaji runs.
func TestRunnerReportsAFailureInTheBackgroundAsItsStage(t *testing.T) {
	e, _, _, _ := testEnv(t)
	var log syncLog
	by, ss := pipeline(&log)
	by[stageCluster].done = true
	cause := errors.New("No such image: kindest/node")
	by[stageWorkers].early = func(context.Context) error {
		return fail(stageWorkers, "image kindest/node", "not present on the daemon", cause)
	}
	by[stageKamaji].hold = func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	var diagnosed *Error
	r := &Runner{Stages: ss, Diagnose: func(_ context.Context, f *Error, _ string) error { diagnosed = f; return nil }}
	ctx, cancel := context.WithTimeout(context.Background(), failureBound)
	defer cancel()
	err := r.Up(ctx, e)
	if ctx.Err() != nil {
		t.Fatalf("kamaji was not stopped when the background failed: %v", err)
	}
	var se *Error
	if !errors.As(err, &se) || se.Stage != stageWorkers || se.Object != "image kindest/node" || !errors.Is(err, cause) {
		t.Fatalf("err = %v, want the workers stage's failure naming its image", err)
	}
	if diagnosed == nil || diagnosed.Stage != stageWorkers {
		t.Errorf("diagnostics for %+v, want the workers stage", diagnosed)
	}
	recs, _ := e.State.ReadStages()
	var statuses []string
	for _, rec := range recs {
		statuses = append(statuses, rec.Name+" "+rec.Status)
	}
	if want := []string{"cluster " + StatusSkipped, "workers " + StatusFailed}; !slices.Equal(statuses, want) {
		t.Errorf("records %q, want %q", statuses, want)
	}
	if got := log.get(); slices.Contains(got, "check tenants") {
		t.Errorf("a stage after kamaji ran: %q", got)
	}
}

// TestRunnerPlanSaysWhatBeginsAhead: the workers' dry-run begins with what
// the runner begins in the background, and beside which stages.
func TestRunnerPlanSaysWhatBeginsAhead(t *testing.T) {
	e, _, _, _ := testEnv(t)
	var log syncLog
	_, ss := pipeline(&log)
	plans := map[string][]string{}
	if err := (&Runner{Stages: ss, OnEvent: func(ev Event) { plans[ev.Stage] = ev.Lines }}).Plan(e); err != nil {
		t.Fatal(err)
	}
	want := []string{"in the background, beside the first of stages kamaji, tenants that runs (none runs: here, in turn): " +
		"its early step; this stage waits for them to finish before it checks its work", "plan workers"}
	if !slices.Equal(plans[stageWorkers], want) {
		t.Errorf("workers' plan %q, want %q", plans[stageWorkers], want)
	}
	if !slices.Equal(plans[stageKamaji], []string{"plan kamaji"}) || len(log.get()) != 0 {
		t.Errorf("kamaji's plan %q, log %q: want its own line alone, nothing run", plans[stageKamaji], log.get())
	}
}

func count(lines []string, s string) int {
	n := 0
	for _, l := range lines {
		if l == s {
			n++
		}
	}
	return n
}
