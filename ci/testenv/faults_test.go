package testenv

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bareEnv is an environment with no components, for the fault methods;
// Stop ends whatever the test added.
func bareEnv(t *testing.T, logs *syncBuffer) *Env {
	t.Helper()
	e := &Env{log: slog.New(slog.NewTextHandler(logs, nil)), grace: time.Second, workDir: t.TempDir(), tenants: map[string]*tenant{}}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	t.Cleanup(func() {
		if err := e.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return e
}

// sleeper starts a stand-in process under a component's name.
func sleeper(t *testing.T, e *Env, name string) *process {
	t.Helper()
	p, err := e.start(name, "/bin/sleep", []string{"600"}, filepath.Join(e.workDir, strings.ReplaceAll(name, "/", "-")+".log"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Each fault is named by Health, by TenantHealth only for the tenants it
// serves (etcd serves all), and in one line of the environment's log; a
// resumed component is healthy again.
func TestFaultsAreNamedPerTenant(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	e := bareEnv(t, &logs)
	sleeper(t, e, "etcd")
	sleeper(t, e, "a/kube-scheduler")
	sleeper(t, e, "b/kube-scheduler")
	paused := make(chan struct{}, 10)
	runs := make(chan struct{}, 10)
	e.runInProcess("a/"+ComponentFinalizer, func(ctx context.Context) error {
		runs <- struct{}{}
		<-ctx.Done()
		paused <- struct{}{}
		return nil
	})
	<-runs
	e.watch()

	waitLog := func(want ...string) {
		t.Helper()
		deadline := time.Now().Add(time.Minute) // only ends a broken test
		for !anyLine(logs.String(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("no log line with %q:\n%s", want, logs.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	healthIs := func(tenant, want string) {
		t.Helper()
		err := e.TenantHealth(tenant)
		switch {
		case want == "" && err != nil:
			t.Errorf("TenantHealth(%s) = %v, want nil", tenant, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("TenantHealth(%s) = %v, want it to say %q", tenant, err, want)
		}
	}

	if err := e.Suspend("b", "kube-scheduler"); err != nil {
		t.Fatal(err)
	}
	healthIs("b", "b/kube-scheduler (pid")
	healthIs("a", "")
	waitLog("b/kube-scheduler is suspended")
	if err := e.Resume("b", "kube-scheduler"); err != nil {
		t.Fatal(err)
	}
	healthIs("b", "")
	waitLog("b/kube-scheduler runs again")

	if err := e.Suspend("a", ComponentFinalizer); err != nil {
		t.Fatal(err)
	}
	<-paused
	healthIs("a", "a/bind-finalizer is suspended")
	healthIs("b", "")
	waitLog("a/bind-finalizer is suspended")
	if err := e.Resume("a", ComponentFinalizer); err != nil {
		t.Fatal(err)
	}
	<-runs // its work started again
	healthIs("a", "")
	waitLog("a/bind-finalizer runs again")

	if err := e.Suspend("", "etcd"); err != nil {
		t.Fatal(err)
	}
	healthIs("a", "etcd (pid")
	healthIs("b", "etcd (pid")
	if err := e.Resume("", "etcd"); err != nil {
		t.Fatal(err)
	}

	if err := e.Kill("a", "kube-scheduler"); err != nil {
		t.Fatal(err)
	}
	healthIs("a", "a/kube-scheduler exited on its own (signal: killed)")
	healthIs("b", "")
	waitLog("a/kube-scheduler exited on its own: signal: killed")
	if err := e.Kill("a", ComponentFinalizer); err != nil {
		t.Fatal(err)
	}
	<-paused
	healthIs("a", "a/bind-finalizer is not running (killed")
	waitLog("a/bind-finalizer is not running (killed")
	if err := e.Resume("a", ComponentFinalizer); err == nil {
		t.Error("Resume of a killed bind finalizer succeeded")
	}
	if err := e.Kill("a", "kube-scheduler"); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("second Kill = %v, want it to say the process is not running", err)
	}
	if err := e.Suspend("c", "kube-scheduler"); err == nil || !strings.Contains(err.Error(), "b/kube-scheduler") {
		t.Errorf("Suspend of a missing component = %v, want it to list the components", err)
	}
	// Both of tenant a's faults, on separate lines of one error.
	if err := e.Health(); err == nil || strings.Count(err.Error(), "\n") != 1 {
		t.Errorf("Health = %v, want the killed scheduler and finalizer", err)
	}
}

func anyLine(s string, want []string) bool {
	for _, line := range strings.Split(s, "\n") {
		if containsAll(line, want) {
			return true
		}
	}
	return false
}
