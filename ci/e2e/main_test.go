package e2e

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/results"
	"github.com/gpu-lab/gpu-lab/ci/suite"
	"github.com/gpu-lab/gpu-lab/ci/testenv"
)

// env is ONE local test environment for the default lab, shared by every
// test of the package to keep `go test` fast; startErr says why there is none.
var (
	env      *testenv.Env
	startErr error
)

func TestMain(m *testing.M) {
	flag.Parse()
	if !testing.Short() {
		log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		env, startErr = testenv.Start(ctx, lab.Default(), testenv.Options{Log: log})
		cancel()
		if startErr == nil {
			fmt.Fprintln(os.Stderr, "HAMi scheduler:", env.HAMi(), "—", testenv.HAMiOfBackend(env.Backend()))
		}
	}
	code := m.Run()
	if env != nil {
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stop local test environment:", err)
		}
	}
	os.Exit(code)
}

// needEnv returns the shared environment or ends the test.
func needEnv(tb testing.TB) *testenv.Env {
	tb.Helper()
	if testing.Short() {
		tb.Skip("starts the local test environment (real Kubernetes processes); skipped with -short")
	}
	if startErr != nil {
		tb.Fatalf("local test environment did not start: %v", startErr)
	}
	if err := env.Err(); err != nil {
		tb.Fatalf("local test environment: %v", err)
	}
	return env
}

// config is a suite config for the environment: its lab, one rest.Config
// per tenant, and the version the environment's binaries report.
func config(e *testenv.Env) suite.Config {
	tenants := map[string]*rest.Config{}
	for _, t := range e.Tenants() {
		tenants[t] = e.RESTConfig(t)
	}
	return suite.Config{
		Lab:               e.Lab(),
		Tenants:           tenants,
		Backend:           e.Backend(),
		KubernetesVersion: testenv.KubernetesVersion,
		Log:               slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
}

// byID indexes a run's cases.
func byID(run *results.Run) map[string]results.Case {
	out := map[string]results.Case{}
	for _, c := range run.Cases {
		out[c.ID] = c
	}
	return out
}

// logRun prints the run like `labctl test` does, for failing tests.
func logRun(tb testing.TB, run *results.Run) {
	tb.Helper()
	for _, c := range run.Cases {
		tb.Logf("%-7s %s %s (%.2fs) %s", c.Status, c.ID, c.Title, c.Duration.Seconds(), c.Message)
	}
}
