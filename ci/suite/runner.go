package suite

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/conc/pool"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// caseRun is one case placed on the lab's hardware.
type caseRun struct {
	Case
	tenants []string
	// skip is set when the lab has no hardware for the case.
	skip string
	// needs are cases of the same scenario whose state this one uses.
	needs []string
	run   func(ctx context.Context, t *caseT) error
}

// task is what the pool runs: one scenario (cases in order) or one
// independent case.
type task struct {
	scenario string
	cases    []*caseRun
	// locks are the cards the scenario holds while it runs (cardKey).
	locks []string
}

// runner holds one run's shared state.
type runner struct {
	cfg     Config
	tm      Timeouts
	log     *slog.Logger
	clients map[string]kubernetes.Interface
	runID   string
	// reach is each tenant's reachability error (nil: it answered);
	// probe makes the check (nil: GET /version).
	reach map[string]error
	probe probeFunc
	// relist spaces the re-lists after a failed watch.
	relist relistPolicy
	// cards are held by the scenario running on them.
	cards *cardLocks
	// healthEvery is how often a running case asks Config.Health
	// (healthInterval when zero).
	healthEvery time.Duration
	// lockWait bounds the wait for a bound pod's node lock to be released
	// (lockReleaseWait when zero).
	lockWait time.Duration
	// bindWait bounds TC-19's wait, from the bind, for the bind phase
	// success and the lock's release (bindFinishWait when zero).
	bindWait time.Duration

	mu      sync.Mutex
	tenants []results.TenantState
}

// Run executes the selected cases and returns the run, also when cases fail
// or ctx is cancelled (then Interrupted is set and cases not started are
// skipped). The error is only about the configuration.
func Run(ctx context.Context, cfg Config) (*results.Run, error) {
	runRE, skipRE, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, tm: cfg.Timeouts.withDefaults(), log: cfg.Log, clients: map[string]kubernetes.Interface{}, runID: rand.String(5),
		cards: newCardLocks()}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.cfg.Image == "" {
		r.cfg.Image = DefaultImage
	}
	if r.cfg.KubernetesVersion == "" {
		r.cfg.KubernetesVersion = cfg.Lab.Versions.Kubernetes
	}
	for name, rc := range cfg.Tenants {
		c := rest.CopyConfig(rc)
		// The suite's own calls must not be what is slow.
		c.QPS, c.Burst = 100, 200
		cs, err := kubernetes.NewForConfig(c)
		if err != nil {
			return nil, fmt.Errorf("tenant %s: client: %w", name, err)
		}
		r.clients[name] = cs
	}
	tasks := select_(r.plan(), runRE, skipRE)
	// One check per tenant before any case: an unreachable tenant fails
	// its cases at once with one reason, instead of each case waiting out
	// its own connection timeout.
	r.checkReach(ctx)
	return r.execute(ctx, tasks), nil
}

// select_ keeps the selected cases and the prerequisites they need. A
// prerequisite excluded by --skip stays in the list as skipped, so the case
// that needs it says why it is blocked.
func select_(tasks []*task, run, skip *regexp.Regexp) []*task {
	var out []*task
	for _, tk := range tasks {
		want := map[string]bool{}
		for _, c := range tk.cases {
			if (run == nil || run.MatchString(c.ID)) && (skip == nil || !skip.MatchString(c.ID)) {
				want[c.ID] = true
			}
		}
		for i := len(tk.cases) - 1; i >= 0; i-- {
			if c := tk.cases[i]; want[c.ID] {
				for _, n := range c.needs {
					want[n] = true
				}
			}
		}
		var kept []*caseRun
		for _, c := range tk.cases {
			if !want[c.ID] {
				continue
			}
			if skip != nil && skip.MatchString(c.ID) {
				cc := *c
				cc.skip = excludedPrefix + skip.String()
				c = &cc
			}
			kept = append(kept, c)
		}
		if len(kept) > 0 {
			out = append(out, &task{scenario: tk.scenario, cases: kept, locks: tk.locks})
		}
	}
	return out
}

func (r *runner) execute(ctx context.Context, tasks []*task) *results.Run {
	run := &results.Run{
		Schema:  results.SchemaVersion,
		Lab:     r.cfg.Lab.Name,
		Backend: r.cfg.Backend,
		Started: time.Now(),
	}
	workers := r.cfg.Parallel
	if workers == 0 {
		workers = len(tasks)
	}
	if r.cfg.Serial {
		workers = 1
	}
	workers = max(workers, 1)
	run.Parallel = workers
	r.log.Info("suite starting", "lab", run.Lab, "backend", run.Backend, "tasks", len(tasks), "parallel", workers, "run", r.runID)

	byTask := make([][]results.Case, len(tasks))
	p := pool.New().WithMaxGoroutines(workers)
	for i, tk := range tasks {
		p.Go(func() { byTask[i] = r.runTask(ctx, tk) })
	}
	p.Wait()

	for _, cs := range byTask {
		run.Cases = append(run.Cases, cs...)
	}
	sort.SliceStable(run.Cases, func(i, j int) bool { return run.Cases[i].ID < run.Cases[j].ID })
	run.Interrupted = ctx.Err() != nil

	// The end state of every tenant's cards, also after Ctrl-C.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.tm.Cleanup)
	defer cancel()
	for _, t := range r.cfg.Lab.TenantNames() {
		if r.reach[t] != nil {
			continue // it did not answer before the run; asking again only waits
		}
		if down := r.health([]string{t}); down != nil {
			r.log.Warn("end-of-run snapshot skipped", "tenant", t, "why", down.Error())
			continue
		}
		if st, err := r.snapshot(sctx, t, "end of run"); err == nil {
			r.addTenantState(st)
		} else {
			r.log.Warn("end-of-run snapshot", "tenant", t, "err", err)
		}
	}
	run.Tenants = inLabOrder(r.tenants, r.cfg.Lab.TenantNames())
	run.Duration = results.Duration(time.Since(run.Started))
	return run
}

func (r *runner) addTenantState(st results.TenantState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tenants = append(r.tenants, st)
}

// runTask runs a scenario's cases in order, then deletes the namespaces
// they created with a context that outlives cancellation.
func (r *runner) runTask(ctx context.Context, tk *task) (out []results.Case) {
	l := &lane{}
	waitErr := error(nil)
	if len(tk.locks) > 0 && runsAny(tk) {
		if r.cards == nil {
			r.cards = newCardLocks()
		}
		if waitErr = r.cards.acquire(ctx, tk.locks); waitErr == nil {
			// Released only after the cleanup below has seen the pods
			// gone, so the next scenario finds its cards empty.
			defer r.cards.release(tk.locks)
		}
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.tm.Cleanup)
		defer cancel()
		// What could not be deleted is said where the case that made it is
		// reported (out is the named result, filled by now).
		for _, left := range r.cleanup(cctx, l) {
			for i := range out {
				if out[i].ID == left.caseID {
					out[i].Steps = append(out[i].Steps, results.Step{At: time.Now(), Message: "cleanup: " + left.String()})
				}
			}
		}
	}()
	status := map[string]results.Status{}
	for _, c := range tk.cases {
		res := results.Case{ID: c.ID, Title: c.Title, Tenants: c.tenants, Scenario: tk.scenario, Started: time.Now(), Core: c.Core}
		_, down := r.unreachableTenant(c.tenants)
		switch blocked := blockedBy(c, status); {
		case c.skip != "":
			res.Status, res.Message = results.Skipped, c.skip
			if c.Core && r.cfg.FailOnSkip && !strings.HasPrefix(c.skip, excludedPrefix) {
				// The lab was meant to prove this and cannot: with
				// FailOnSkip that is a failure, not a quiet skip.
				res.Status, res.Message = results.Failed, "core case not run (fail on skip): "+c.skip
			}
		case ctx.Err() != nil || waitErr != nil:
			res.Status, res.Message = results.Skipped, "not run: the run was interrupted"
		case down != nil:
			// Failed, not skipped: the lab was meant to be tested and could
			// not be, which a CI that tolerates skips must not pass as green.
			res.Status, res.Message = results.Failed, NotRunMessage(down)
		case blocked != "":
			res.Status, res.Message = results.Skipped, blocked
		default:
			r.runCase(ctx, c, l, &res)
		}
		status[c.ID] = res.Status
		r.log.Info("case done", "id", c.ID, "status",
			res.Status, "duration", time.Duration(res.Duration).Round(time.Millisecond), "message", res.Message)
		out = append(out, res)
	}
	return out
}

// excludedPrefix starts the skip reason of a case the user left out.
const excludedPrefix = "excluded by --skip "

// runsAny reports whether a task has a case that will run (not skipped up
// front), so tasks of skipped cases never wait for cards.
func runsAny(tk *task) bool {
	for _, c := range tk.cases {
		if c.skip == "" {
			return true
		}
	}
	return false
}

func blockedBy(c *caseRun, status map[string]results.Status) string {
	for _, n := range c.needs {
		switch s, ok := status[n]; {
		case !ok:
			return fmt.Sprintf("blocked: needs %s, which did not run", n)
		case s != results.Passed:
			return fmt.Sprintf("blocked: needs the state %s sets up, and %s %s", n, n, s)
		}
	}
	return ""
}

func (r *runner) runCase(ctx context.Context, c *caseRun, l *lane, res *results.Case) {
	r.log.Info("case start", "id", c.ID, "title", c.Title, "tenants", c.tenants)
	t := &caseT{r: r, res: res, lane: l, caseID: c.ID}
	cctx, cancel := context.WithTimeout(ctx, r.tm.Case)
	hctx, stopCase := context.WithCancelCause(cctx)
	stopWatch := r.watchHealth(hctx, stopCase, c.tenants)
	err := runRecovering(hctx, c, t)
	stopWatch()
	down := stoppedBy(hctx)
	stopCase(nil)
	cancel()
	res.Duration = results.Duration(time.Since(res.Started))
	if err == nil {
		res.Status = results.Passed
		return
	}
	if msg, ok := skippedBy(err); ok && ctx.Err() == nil {
		res.Status, res.Message = results.Skipped, msg
		return
	}
	res.Status = results.Failed
	if down == nil && ctx.Err() == nil {
		// The component may have died since the last look: the failure
		// is then its doing, not the behaviour under test.
		down = r.health(c.tenants)
	}
	res.Message = r.failureMessage(ctx, cctx, down, err)
	if full := err.Error(); full != res.Message {
		res.Details = full
	}
	r.collectDiagnostics(ctx, t, down)
	if down != nil {
		res.Details = "not running: " + down.err.Error() + "\n\n" + err.Error()
		res.Diagnostics["health.txt"] = "Components the platform reported not running when the case failed:\n" +
			down.err.Error() + "\n"
	}
}

// runRecovering runs the case, a panic in it returned as its error with
// the stack, so one case's bug fails that case, not the run.
func runRecovering(ctx context.Context, c *caseRun, t *caseT) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return c.run(ctx, t)
}

// failureMessage is a failed case's one-line message: whether the run was
// interrupted, a component was down or the case timed out (cctx is the
// case's context, under its timeout), and the error's first line.
func (r *runner) failureMessage(ctx, cctx context.Context, down *componentDown, err error) string {
	switch {
	case ctx.Err() != nil:
		return "interrupted: " + oneLine(err.Error())
	case down != nil:
		return downMessage(down, err)
	case errors.Is(err, context.DeadlineExceeded) && cctx.Err() != nil:
		return fmt.Sprintf("case timeout (%s) exceeded: %s", r.tm.Case, oneLine(err.Error()))
	default:
		return oneLine(err.Error())
	}
}

// collectDiagnostics adds a failed case's diagnostics to its result, within
// Timeouts.Cleanup — at most Timeouts.Broken when a component is down, as a
// suspended server holds every call until its bound — and also after the
// run is interrupted.
func (r *runner) collectDiagnostics(ctx context.Context, t *caseT, down *componentDown) {
	bound := r.tm.Cleanup
	if down != nil {
		bound = min(bound, r.tm.Broken)
	}
	dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), bound)
	defer dcancel()
	// What the case kept (caseT.keep) stays beside what is collected now.
	collected := t.diagnostics(dctx)
	if t.res.Diagnostics == nil {
		t.res.Diagnostics = collected
	} else {
		maps.Copy(t.res.Diagnostics, collected)
	}
}

func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
