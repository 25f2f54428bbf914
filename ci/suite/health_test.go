package suite

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// brokenTenant is a Config.Health naming one component of a tenant as
// broken once it is set.
type brokenTenant struct {
	tenant string
	why    atomic.Pointer[string]
}

func (b *brokenTenant) health(tenant string) error {
	if w := b.why.Load(); w != nil && tenant == b.tenant {
		return errors.New(*w)
	}
	return nil
}

func (b *brokenTenant) breakNow(why string) { b.why.Store(&why) }

// A case of a tenant whose component breaks while it waits ends at once,
// failed with the component named and what it was doing; a case of
// another tenant runs on and passes; the failed case's diagnostics say
// what was down.
func TestBrokenComponentStopsOnlyItsTenantsCases(t *testing.T) {
	r, _ := fakeRunner(nil)
	r.healthEvery = time.Millisecond
	// Long enough that a case ended by its timeout reads differently.
	r.tm.Case = time.Minute
	b := &brokenTenant{tenant: "tenant-b"}
	r.cfg.Health = b.health
	waiting := make(chan struct{})
	release := make(chan struct{})
	waitForever := func(ctx context.Context, t *caseT) error {
		if _, err := t.namespace(ctx, "tenant-b"); err != nil {
			return err
		}
		close(waiting)
		<-ctx.Done()
		return errors.New("pod tc-09/tc09 not bound: " + ctx.Err().Error())
	}
	healthy := func(ctx context.Context, t *caseT) error {
		<-release // still running when tenant-b breaks
		return ctx.Err()
	}
	b09 := fakeCase("TC-09", nil, waitForever)
	b09.tenants = []string{"tenant-b"}
	tasks := []*task{{cases: []*caseRun{b09}}, {cases: []*caseRun{fakeCase("TC-06", nil, healthy)}}}
	go func() {
		<-waiting
		b.breakNow("tenant-b/kube-scheduler exited on its own (signal: killed)\netcd (pid 7) is suspended (SIGSTOP)")
		close(release)
	}()
	run := r.execute(context.Background(), tasks)
	cases := map[string]results.Case{}
	for _, c := range run.Cases {
		cases[c.ID] = c
	}
	want := "tenant-b/kube-scheduler exited on its own (signal: killed); etcd (pid 7) is suspended (SIGSTOP) (the case failed with: pod " +
		"tc-09/tc09 not bound: context canceled)"
	if c := cases["TC-09"]; c.Status != results.Failed || c.Message != want {
		t.Errorf("TC-09 = %s %q\nwant failed %q", c.Status, c.Message, want)
	}
	if h := cases["TC-09"].Diagnostics["health.txt"]; !strings.Contains(h, "tenant-b/kube-scheduler exited") ||
		!strings.Contains(h, "\netcd (pid 7)") {
		t.Errorf("TC-09 health.txt = %q", h)
	}
	if c := cases["TC-06"]; c.Status != results.Passed {
		t.Errorf("TC-06 of the healthy tenant-a = %s %q, want passed", c.Status, c.Message)
	}
	// The end-of-run sample skips the broken tenant.
	if len(run.Tenants) != 1 || run.Tenants[0].Name != "tenant-a" {
		t.Errorf("end-of-run samples = %+v, want tenant-a's only", run.Tenants)
	}
}

// A case that fails on its own while a component of its tenant is down
// (it died between two looks) says so; with Health nil or healthy the
// message is the case's own.
func TestFailedCaseNamesComponentDownAtThatMoment(t *testing.T) {
	for _, tc := range []struct {
		name   string
		health func(string) error
		want   string
	}{
		{"down", func(tn string) error {
			if tn == "tenant-a" {
				return errors.New("tenant-a/kube-apiserver exited on its own (signal: killed); log /w/kube-apiserver.log")
			}
			return nil
		}, "tenant-a/kube-apiserver exited on its own (signal: killed); log /w/kube-apiserver.log (the case failed with: create pod: " +
			"connection refused)"},
		{"healthy", func(string) error { return nil }, "create pod: connection refused"},
		{"no health", nil, "create pod: connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := fakeRunner(nil)
			r.healthEvery = time.Hour // only the first look, before the case fails
			var died atomic.Bool
			r.cfg.Health = tc.health
			if tc.health != nil {
				r.cfg.Health = func(tn string) error {
					if !died.Load() { // healthy until the case meets the dead server
						return nil
					}
					return tc.health(tn)
				}
			}
			fails := func(context.Context, *caseT) error {
				died.Store(true)
				return errors.New("create pod: connection refused")
			}
			run := r.execute(context.Background(), []*task{{cases: []*caseRun{fakeCase("TC-03", nil, fails)}}})
			if c := run.Cases[0]; c.Status != results.Failed || c.Message != tc.want {
				t.Errorf("TC-03 = %s %q, want failed %q", c.Status, c.Message, tc.want)
			}
		})
	}
}

// With a tenant's API server gone, cleanup does not wait out its bound: the
// first failed call ends that tenant's cleanup, and every namespace left
// is said, with the component, on the case that made it.
func TestCleanupOfBrokenTenantIsBoundedAndSaysWhatIsLeft(t *testing.T) {
	r, fakes := fakeRunner(nil)
	r.healthEvery = time.Hour
	r.tm.Cleanup = time.Minute // a cleanup that waited it out would show in the messages below
	var calls atomic.Int32
	var broken atomic.Bool
	r.cfg.Health = func(tn string) error {
		if broken.Load() && tn == "tenant-a" {
			return errors.New("tenant-a/kube-apiserver exited on its own (signal: killed)")
		}
		return nil
	}
	fakes["tenant-a"].PrependReactor("*", "*", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if !broken.Load() {
			return false, nil, nil
		}
		calls.Add(1)
		return true, nil, errors.New("dial tcp 127.0.0.1:6443: connect: connection refused")
	})
	twoNamespaces := func(ctx context.Context, t *caseT) error {
		if _, err := t.namespace(ctx, "tenant-a"); err != nil {
			return err
		}
		if _, err := t.namespace(ctx, "tenant-b"); err != nil {
			return err
		}
		return nil
	}
	onlyA := func(ctx context.Context, t *caseT) error {
		_, err := t.namespace(ctx, "tenant-a")
		broken.Store(true) // the API server dies after the case made its namespace
		return err
	}
	run := r.execute(context.Background(), []*task{{cases: []*caseRun{
		fakeCase("TC-08", nil, twoNamespaces), fakeCase("TC-15", nil, onlyA),
	}}})
	steps := func(c results.Case) string {
		var out []string
		for _, s := range c.Steps {
			if strings.HasPrefix(s.Message, "cleanup: ") {
				out = append(out, s.Message)
			}
		}
		return strings.Join(out, "\n")
	}
	c08, c15 := run.Cases[0], run.Cases[1]
	if got := steps(c08); !strings.Contains(got, "cleanup: namespace tc-08-test1 in tenant tenant-a was not deleted: delete its pods: "+
		"tenant-a/kube-apiserver exited on its own (signal: killed): ") ||
		!strings.Contains(got, "connection refused") {
		t.Errorf("TC-08 cleanup steps:\n%s", got)
	}
	if got := steps(c15); !strings.Contains(got, "cleanup: namespace tc-15-test1 in tenant tenant-a was not deleted: "+
		"tenant-a/kube-apiserver exited") {
		t.Errorf("TC-15 cleanup steps:\n%s", got)
	}
	// One failed call, then tenant-a is given up on; tenant-b is cleaned.
	if n := calls.Load(); n != 1 {
		t.Errorf("%d calls to the dead tenant-a during cleanup, want 1", n)
	}
	nss, _ := fakes["tenant-b"].CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{})
	if len(nss.Items) != 0 {
		t.Errorf("tenant-b namespaces left: %d", len(nss.Items))
	}
}

// A tenant that does not answer before the run is reported with the
// component Health names.
func TestUnreachableTenantNamesComponentDown(t *testing.T) {
	r, _ := fakeRunner(nil)
	r.cfg.Health = func(tn string) error {
		if tn == "tenant-b" {
			return errors.New("tenant-b/kube-apiserver (pid 9) is suspended (SIGSTOP)")
		}
		return nil
	}
	r.probe = func(_ context.Context, tn string) error {
		if tn == "tenant-b" {
			return errors.New("context deadline exceeded")
		}
		return nil
	}
	r.checkReach(context.Background())
	if r.reach["tenant-a"] != nil {
		t.Errorf("tenant-a: %v", r.reach["tenant-a"])
	}
	want := "not run: tenant-b/kube-apiserver (pid 9) is suspended (SIGSTOP): tenant tenant-b: API server unreachable: context " +
		"deadline exceeded"
	if got := NotRunMessage(r.reach["tenant-b"]); got != want {
		t.Errorf("tenant-b: %q\nwant %q", got, want)
	}
}

// A tenant whose API server accepts calls and never answers (suspended)
// holds each cleanup call only Timeouts.Broken, not the whole cleanup
// bound, once Health names it.
func TestCleanupOfSuspendedTenantEndsAtBrokenBound(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hang.Close()
	defer close(release) // before Close, which waits for the handlers
	r, _ := fakeRunner(nil)
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: hang.URL})
	if err != nil {
		t.Fatal(err)
	}
	r.clients["tenant-a"] = cs
	r.tm.Cleanup, r.tm.Broken = time.Hour, 10*time.Millisecond
	r.cfg.Health = func(tn string) error {
		if tn == "tenant-a" {
			return errors.New("tenant-a/kube-apiserver (pid 3) is suspended (SIGSTOP)")
		}
		return nil
	}
	l := &lane{namespaces: []laneNamespace{{tenant: "tenant-a", namespace: "tc-03-x", caseID: "TC-03"},
		{tenant: "tenant-a", namespace: "tc-05-x", caseID: "TC-05"}}}
	done := make(chan []leftover)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), r.tm.Cleanup)
		defer cancel()
		done <- r.cleanup(ctx, l)
	}()
	select {
	case left := <-done:
		if len(left) != 2 ||
			!strings.Contains(left[0].String(), "namespace tc-03-x in tenant tenant-a was not deleted: delete its pods: tenant-a/kube-apiserver "+
				"(pid 3) is suspended (SIGSTOP): ") ||
			left[1].caseID != "TC-05" {
			t.Errorf("left = %v", left)
		}
	case <-time.After(time.Minute): // only ends a broken test
		t.Fatal("cleanup of a suspended tenant waited for its whole bound (an hour), not Timeouts.Broken")
	}
}
