package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/testenv"
)

// seedTenants are the seed lab's tenants: a test that needs a whole
// environment holds all of them.
var seedTenants = lab.Default().TenantNames()

// seeds lends the package's seed-lab environments to its tests. One is
// enough: booting a second costs more CPU than the waiting it saves when
// the package shares two cores with ci/testenv's environments (measured
// 2026-12-01 with ci/testenv alongside: 106 s with one, 141 s with two).
var seeds = &seedPool{max: 1}

// seedPool lends local environments of the seed lab (lab.Default()) to the
// package's tests tenant by tenant: a test holds alone the tenants whose
// state it changes (a fault of their HAMi, a pod or node lock of its own)
// or whose cards its cases fill, and shares with other readers those it
// only reads. So tests on different tenants run at once in one
// environment, and tests that need a whole one take turns on up to max,
// which are started as tests wait for them. Booting one is what costs CPU
// (about 14 CPU-seconds), so the pool stays small. A test may also spend
// one for good (a fault it cannot undo) once no other request waits; a
// request that comes later gets a new environment.
type seedPool struct {
	max     int
	mu      sync.Mutex
	started int
	envs    []*seedEnv
	waiting []*seedLease
}

// seedEnv is one environment of the pool.
type seedEnv struct {
	name  string
	log   syncLog // everything it logged, for tests that wait for a line
	ready chan struct{}
	env   *testenv.Env
	err   error
	// holders: per tenant, how many tests read it, or -1 while one test
	// holds it alone. Guarded by the pool's mu.
	holders map[string]int
	spent   bool
}

// seedLease is one test's request.
type seedLease struct {
	alone, reads []string
	spend        bool
	granted      chan *seedEnv
}

// wide reports whether the request needs every tenant alone.
func (r *seedLease) wide() bool { return r.spend || len(r.alone) == len(seedTenants) }

// leaseSeed returns a seed-lab environment in which the test holds the
// tenants alone alone and shares reads with other readers until it ends.
func leaseSeed(tb testing.TB, alone, reads []string) *testenv.Env {
	tb.Helper()
	return seeds.lease(tb, &seedLease{alone: alone, reads: reads}).env
}

// wholeSeed returns a seed-lab environment the test holds alone.
func wholeSeed(tb testing.TB) *testenv.Env {
	tb.Helper()
	return leaseSeed(tb, seedTenants, nil)
}

// spendSeed returns a seed-lab environment, and its log, that the test may
// break for good: no other test gets it afterwards. The test stops it
// (stopAndCheckNothingLeft); it is stopped at the test's end regardless.
func spendSeed(tb testing.TB) (*testenv.Env, *syncLog) {
	tb.Helper()
	pe := seeds.lease(tb, &seedLease{alone: seedTenants, spend: true})
	return pe.env, &pe.log
}

func (p *seedPool) lease(tb testing.TB, r *seedLease) *seedEnv {
	tb.Helper()
	requireEnvironments(tb)
	r.granted = make(chan *seedEnv, 1)
	asked := time.Now()
	p.mu.Lock()
	p.waiting = append(p.waiting, r)
	p.grant()
	p.mu.Unlock()
	pe := <-r.granted
	granted := time.Now()
	tb.Cleanup(func() {
		p.release(pe, r)
		tb.Logf("%s: held %s", pe.name, time.Since(granted).Round(100*time.Millisecond))
	})
	<-pe.ready
	tb.Logf("%s: holds %v alone and reads %v (spend: %v), after waiting %s for them and %s for the environment to start",
		pe.name, r.alone, r.reads, r.spend, granted.Sub(asked).Round(100*time.Millisecond), time.Since(granted).Round(100*time.Millisecond))
	if pe.err != nil {
		tb.Fatalf("local test environment %s did not start: %v", pe.name, pe.err)
	}
	if err := pe.env.Err(); err != nil {
		tb.Fatalf("local test environment %s: %v", pe.name, err)
	}
	return pe
}

// requireDouble skips the test, before it waits for tenants, when the
// pool's environments run a real HAMi (requireDouble): they all run the
// same HAMi scheduler, so the first one tells.
func (p *seedPool) requireDouble(tb testing.TB) {
	tb.Helper()
	requireEnvironments(tb)
	p.mu.Lock()
	if len(p.envs) == 0 {
		p.start()
	}
	pe := p.envs[0]
	p.mu.Unlock()
	<-pe.ready
	if pe.err != nil {
		tb.Fatalf("local test environment %s did not start: %v", pe.name, pe.err)
	}
	requireDouble(tb, pe.env)
}

// grant gives waiting requests an environment they fit: whole-environment
// requests first, then the others, each in the order they came (so the
// tests on one tenant take turns while another tenant's run, instead of
// leaving one idle while a whole-environment request waits for it). A
// whole-environment request that fits none claims one, so smaller requests
// do not keep every environment busy forever. One more environment starts
// when requests wait and fewer than max were started (or none is left).
// Call with p.mu held.
func (p *seedPool) grant() {
	slices.SortStableFunc(p.waiting, func(a, b *seedLease) int {
		rank := func(r *seedLease) int {
			switch {
			case r.spend:
				return 2
			case r.wide():
				return 0
			}
			return 1
		}
		return rank(a) - rank(b)
	})
	claimed := map[*seedEnv]bool{}
	var still []*seedLease
	for _, r := range p.waiting {
		if pe := p.fit(r, claimed, len(still) > 0); pe != nil {
			pe.take(r)
			r.granted <- pe
			continue
		}
		if r.wide() {
			for _, pe := range p.envs {
				if !pe.spent && !claimed[pe] {
					claimed[pe] = true
					break
				}
			}
		}
		still = append(still, r)
	}
	p.waiting = still
	if len(p.waiting) > 0 && (p.started < p.max || p.live() == 0) {
		p.start()
		p.grant()
	}
}

// fit is an environment whose tenants the request can have now; a request
// to spend one waits until no earlier request does.
func (p *seedPool) fit(r *seedLease, claimed map[*seedEnv]bool, earlierWaiting bool) *seedEnv {
	if r.spend && earlierWaiting {
		return nil
	}
	for _, pe := range p.envs {
		if pe.spent || claimed[pe] {
			continue
		}
		ok := true
		for _, tn := range r.alone {
			ok = ok && pe.holders[tn] == 0
		}
		for _, tn := range r.reads {
			ok = ok && pe.holders[tn] >= 0
		}
		if ok {
			return pe
		}
	}
	return nil
}

func (pe *seedEnv) take(r *seedLease) {
	for _, tn := range r.alone {
		pe.holders[tn] = -1
	}
	for _, tn := range r.reads {
		pe.holders[tn]++
	}
	pe.spent = r.spend
}

func (p *seedPool) release(pe *seedEnv, r *seedLease) {
	if r.spend {
		<-pe.ready
		if pe.env != nil {
			_ = pe.env.Stop() // the test stopped it already; Stop is idempotent
		}
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, tn := range r.alone {
		pe.holders[tn] = 0
	}
	for _, tn := range r.reads {
		pe.holders[tn]--
	}
	p.grant()
}

func (p *seedPool) live() int {
	n := 0
	for _, pe := range p.envs {
		if !pe.spent {
			n++
		}
	}
	return n
}

// prestart starts the first environment before any test asks for it, and
// takes the turn to boot (booting) before returning: most tests wait for
// it, so it must not queue behind another test's environment (TestOtherLabs
// won that race and booted its four tenants first, 11 s during which every
// seed test waited).
func (p *seedPool) prestart() {
	booting.Lock()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.boot(false)
}

// start boots one more environment in the background, in the package's
// turn. Call with p.mu held.
func (p *seedPool) start() { p.boot(true) }

// boot starts one more environment in the background; waitTurn: it takes
// its turn to boot first, else the caller holds it. Call with p.mu held.
func (p *seedPool) boot(waitTurn bool) {
	p.started++
	pe := &seedEnv{name: fmt.Sprintf("seed-%d", p.started), ready: make(chan struct{}), holders: map[string]int{}}
	p.envs = append(p.envs, pe)
	go func() {
		defer close(pe.ready)
		// The binaries are built (or found) before the boot's own budget
		// starts; the budget is a boot's, with room for a loaded machine.
		h := slog.NewTextHandler(io.MultiWriter(os.Stderr, &pe.log), &slog.HandlerOptions{Level: slog.LevelInfo})
		if waitTurn {
			booting.Lock()
		}
		pe.env, pe.err = withBinaries(func() (*testenv.Env, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			return testenv.Start(ctx, lab.Default(), testenv.Options{Log: slog.New(h).With("env", pe.name)})
		})
		booting.Unlock()
		if pe.err == nil {
			fmt.Fprintf(os.Stderr, "%s: HAMi scheduler: %s — %s\n", pe.name, pe.env.HAMi(), testenv.HAMiOfBackend(pe.env.Backend()))
		}
	}()
}

// stop stops every environment no test spent, once each has started.
func (p *seedPool) stop() error {
	p.mu.Lock()
	envs := append([]*seedEnv(nil), p.envs...)
	p.mu.Unlock()
	var errs []error
	for _, pe := range envs {
		<-pe.ready
		if pe.env != nil && !pe.spent {
			if err := pe.env.Stop(); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", pe.name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// booting lets one environment of the package boot at a time. A boot keeps
// the CPU busy (about 7 CPU-seconds a tenant), so environments booting
// together are each ready later, while one booted first takes tests that
// wait on kube-scheduler and HAMi as the next one boots.
var booting sync.Mutex

// startEnv is testenv.Start in the package's turn, given timeout from the
// turn on, once the binaries are built: neither the build nor the wait for
// the turn (another environment booting) counts against the boot's budget.
func startEnv(l *lab.Lab, opts testenv.Options, timeout time.Duration) (*testenv.Env, error) {
	return withBinaries(func() (*testenv.Env, error) {
		return inTurn(timeout, func(ctx context.Context) (*testenv.Env, error) { return testenv.Start(ctx, l, opts) })
	})
}

// inTurn runs start in the package's turn to boot, with a context of
// timeout made once the turn has come.
func inTurn[T any](timeout time.Duration, start func(context.Context) (T, error)) (T, error) {
	booting.Lock()
	defer booting.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return start(ctx)
}
