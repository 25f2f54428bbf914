package testenv

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"testing"

	"k8s.io/client-go/kubernetes"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// shared is the default lab, started once for every scenario that only
// reads or adds its own objects; TestMain stops it.
var shared struct {
	once sync.Once
	env  *Env
	err  error
}

// progress prints the build line and readiness to the test's stderr, so a
// first run that builds the binaries for minutes says so.
func progress() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// buildProgress writes the progress of a build of the Kubernetes binaries
// to stderr and, when the tests run from a terminal, straight to it: go test
// holds a package's output until the package is done, and a first build
// takes many minutes. Without a terminal (CI), `labctl testenv build` runs
// before the tests and shows it (.ci/run).
func buildProgress() *slog.Logger {
	var w io.Writer = os.Stderr
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		w = io.MultiWriter(os.Stderr, tty)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

func requireProcesses(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts real Kubernetes processes; skipped with -short")
	}
}

var bins struct {
	once sync.Once
	dir  string
	err  error
}

// binaries returns the directory of the Kubernetes binaries, building them
// on the first call.
func binaries(t testing.TB) string {
	t.Helper()
	bins.once.Do(func() { bins.dir, bins.err = EnsureBinaries(context.Background(), buildProgress()) })
	if bins.err != nil {
		t.Fatalf("Kubernetes test binaries: %v", bins.err)
	}
	return bins.dir
}

// sharedEnv returns the shared default-lab environment, starting it first.
func sharedEnv(t testing.TB) *Env {
	t.Helper()
	requireProcesses(t)
	dir := binaries(t)
	shared.once.Do(func() {
		if os.Getenv(EnvHAMiBinary) == "" { // else a real HAMi runs
			fmt.Fprintln(os.Stderr, DoubleNotice)
		}
		shared.env, shared.err = Start(context.Background(), lab.Default(), Options{BinDir: dir, Log: progress()})
	})
	if shared.err != nil {
		t.Fatalf("start local test environment: %v", shared.err)
	}
	if err := shared.env.Err(); err != nil {
		t.Fatalf("local test environment: %v", err)
	}
	return shared.env
}

// startSolo starts a private one-tenant environment (tenant "solo", one
// worker w1 with one card of the model) for a scenario that breaks or stops
// it; it is stopped when the test ends.
func startSolo(t testing.TB, labName, model string) *Env {
	t.Helper()
	requireProcesses(t)
	l, err := lab.Parse([]byte(fmt.Sprintf("name: %s\ntenants:\n- name: solo\n  workers:\n  - name: w1\n    gpus: [{model: %s, count: 1}]\n", labName, model)))
	if err != nil {
		t.Fatal(err)
	}
	e, err := Start(context.Background(), l, Options{BinDir: binaries(t), Log: progress()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Stop() })
	return e
}

func client(t testing.TB, e *Env, tenant string) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(e.RESTConfig(tenant))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestMain(m *testing.M) {
	if os.Getenv(fakeComponentEnv) != "" {
		runFakeComponent() // this binary is a component started by a test
	}
	code := m.Run()
	if shared.env != nil {
		if err := shared.env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stop shared local test environment:", err)
			code = 1
		}
	}
	os.Exit(code)
}
