package suite

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"github.com/gpu-lab/gpu-lab/ci/internal/nettest"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/results"
)

func TestCheckTenantsBoundsEveryProbe(t *testing.T) {
	const timeout = 7 * time.Second
	tenants := []string{"tenant-a", "tenant-b", "tenant-c"}
	// Each probe waits until all have started: checked one after the
	// other, the first would wait out its deadline.
	var started sync.WaitGroup
	started.Add(len(tenants))
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	var mu sync.Mutex
	left := map[string]time.Duration{}
	got := checkTenants(context.Background(), tenants, timeout, func(ctx context.Context, tn string) error {
		dl, ok := ctx.Deadline()
		mu.Lock()
		left[tn] = time.Until(dl)
		if !ok {
			left[tn] = -1
		}
		mu.Unlock()
		started.Done()
		select {
		case <-all:
		case <-ctx.Done():
			return fmt.Errorf("probe of %s ran alone until its deadline: %w", tn, ctx.Err())
		}
		if tn == "tenant-b" {
			return errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
		}
		return nil
	})
	for _, tn := range tenants {
		if left[tn] <= 0 || left[tn] > timeout {
			t.Errorf("%s: probe deadline %s away, want a deadline within %s", tn, left[tn], timeout)
		}
	}
	if got["tenant-a"] != nil || got["tenant-c"] != nil {
		t.Errorf("reachable tenants: %v, %v", got["tenant-a"], got["tenant-c"])
	}
	if err := got["tenant-b"]; err == nil ||
		err.Error() != "tenant tenant-b: API server unreachable: dial tcp 127.0.0.1:1: connect: connection refused" {
		t.Errorf("tenant-b: %v", err)
	}
}

func TestDefaultReachTimeoutAtMostTenSeconds(t *testing.T) {
	if d := defaultTimeouts().Reach; d <= 0 || d > 10*time.Second {
		t.Errorf("default reachability timeout %s, want (0, 10s]", d)
	}
}

func TestCheckTenantsAgainstDeadServers(t *testing.T) {
	t.Parallel() // waits out a timeout
	silent, refusing := nettest.SilentServer(t), nettest.RefusingAddr(t)
	// The silent server is waited out (300 ms); the refusing one refuses at
	// once, and gets a minute so that a loaded machine slow to dial cannot
	// turn its refusal into "no answer".
	got := CheckTenants(context.Background(), map[string]*rest.Config{
		"silent": {Host: "https://" + silent, TLSClientConfig: rest.TLSClientConfig{Insecure: true}},
	}, 300*time.Millisecond)
	maps.Copy(got, CheckTenants(context.Background(), map[string]*rest.Config{
		"refusing": {Host: "https://" + refusing, TLSClientConfig: rest.TLSClientConfig{Insecure: true}},
	}, time.Minute))
	t.Logf("silent: %v\nrefusing: %v", got["silent"], got["refusing"])
	if err := got["silent"]; err == nil || !strings.Contains(err.Error(), "tenant silent: API server unreachable: no answer within 300ms") {
		t.Errorf("silent server: %v", err)
	}
	if err := got["refusing"]; err == nil || !errors.Is(err, syscall.ECONNREFUSED) ||
		!strings.Contains(err.Error(), "tenant refusing: API server unreachable") {
		t.Errorf("closed port: %v", err)
	}
}

func TestRunFailsCasesOfUnreachableTenants(t *testing.T) {
	t.Parallel() // waits out a timeout
	silent, refusing := nettest.SilentServer(t), nettest.RefusingAddr(t)
	cfg := Config{
		Lab: lab.Default(),
		Tenants: map[string]*rest.Config{
			"tenant-a": {Host: "https://" + silent, TLSClientConfig: rest.TLSClientConfig{Insecure: true}},
			"tenant-b": {Host: "https://" + refusing, TLSClientConfig: rest.TLSClientConfig{Insecure: true}},
		},
		Timeouts: Timeouts{Reach: 300 * time.Millisecond},
	}
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if run.OK() || len(run.Cases) != len(catalog) {
		t.Fatalf("OK=%v with %d cases", run.OK(), len(run.Cases))
	}
	for _, c := range run.Cases {
		if c.Status == results.Skipped && strings.HasPrefix(c.Message, "skipped: ") {
			continue // no hardware for it in this lab: nothing to blame on a tenant
		}
		if c.Status != results.Failed || !strings.HasPrefix(c.Message, "not run: tenant tenant-") ||
			!strings.Contains(c.Message, "API server unreachable") {
			t.Errorf("%s: %s %q, want failed, not run, naming the unreachable tenant", c.ID, c.Status, c.Message)
		}
	}
	if len(run.Tenants) != 0 {
		t.Errorf("end-of-run snapshots of unreachable tenants: %+v", run.Tenants)
	}
}

func TestCheckReachUsesCallersResults(t *testing.T) {
	r, _ := fakeRunner(map[string][]runtime.Object{})
	down := errors.New("tenant tenant-b: API server unreachable: connection refused (kubeconfig b.yaml)")
	r.cfg.Reachability = map[string]error{"tenant-a": nil, "tenant-b": down}
	r.probe = func(_ context.Context, tn string) error {
		t.Errorf("checked %s again", tn)
		return nil
	}
	r.checkReach(context.Background())
	if r.reach["tenant-a"] != nil || r.reach["tenant-b"] != down {
		t.Fatalf("reach = %v", r.reach)
	}
	// A tenant the caller did not check is checked.
	r.cfg.Reachability = map[string]error{"tenant-a": nil}
	var probed []string
	r.probe = func(_ context.Context, tn string) error { probed = append(probed, tn); return down }
	r.checkReach(context.Background())
	if fmt.Sprint(probed) != "[tenant-b]" || r.reach["tenant-b"] == nil {
		t.Fatalf("probed %v, reach %v", probed, r.reach)
	}
}

func TestExecuteRunsReachableTenantsCases(t *testing.T) {
	r, _ := fakeRunner(nil)
	r.reach = map[string]error{"tenant-b": errors.New("tenant tenant-b: API server unreachable: connection refused")}
	ran := map[string]bool{}
	mark := func(id string) func(context.Context, *caseT) error {
		return func(context.Context, *caseT) error { ran[id] = true; return nil }
	}
	both := &caseRun{Case: caseByID("TC-01"), tenants: []string{"tenant-a", "tenant-b"}, run: mark("TC-01")}
	onlyA := fakeCase("TC-03", nil, mark("TC-03"))
	onlyB := &caseRun{Case: caseByID("TC-09"), tenants: []string{"tenant-b"}, run: mark("TC-09")}
	needsB := &caseRun{Case: caseByID("TC-10"), tenants: []string{"tenant-b"}, needs: []string{"TC-09"}, run: mark("TC-10")}
	run := r.execute(context.Background(), []*task{{cases: []*caseRun{both}}, {cases: []*caseRun{onlyA}}, {cases: []*caseRun{onlyB, needsB}}})
	if !ran["TC-03"] || ran["TC-01"] || ran["TC-09"] || ran["TC-10"] {
		t.Errorf("ran %v, want only TC-03 (tenant-a alone)", ran)
	}
	for _, c := range run.Cases {
		want := results.Failed
		if c.ID == "TC-03" {
			want = results.Passed
		}
		if c.Status != want {
			t.Errorf("%s = %s %q, want %s", c.ID, c.Status, c.Message, want)
		}
		if want == results.Failed && c.Message != "not run: tenant tenant-b: API server unreachable: connection refused" {
			t.Errorf("%s message %q", c.ID, c.Message)
		}
	}
	if len(run.Tenants) != 1 || run.Tenants[0].Name != "tenant-a" {
		t.Errorf("end-of-run snapshots = %+v, want tenant-a only", run.Tenants)
	}
}
