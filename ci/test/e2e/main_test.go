package e2e

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/gpu-lab/gpu-lab/ci/internal/testparallel"
	"github.com/gpu-lab/gpu-lab/ci/results"
	"github.com/gpu-lab/gpu-lab/ci/suite"
	"github.com/gpu-lab/gpu-lab/ci/testenv"
)

// parallelTests is how many tests run at once unless -parallel says
// otherwise. The tests wait on other processes (kube-scheduler's backoff,
// HAMi's throttled client, an environment booting), not on the CPU, so
// go test's default (GOMAXPROCS, 2 on a small CI machine) would serialise
// waiting; the seed pool (pool_test.go) decides who runs on what.
const parallelTests = 32

func TestMain(m *testing.M) {
	flag.Parse()
	if err := testparallel.Default(flag.CommandLine, parallelTests); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// A whole run boots the seed lab before its first test asks; a run
	// narrowed by -run boots only what its tests ask for.
	if !testing.Short() && flag.Lookup("test.run").Value.String() == "" {
		seeds.prestart()
	}
	code := m.Run()
	if err := seeds.stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stop the seed-lab environments:", err)
		code = 1
	}
	os.Exit(code)
}

// requireEnvironments skips, with -short, a test that starts local
// environments.
func requireEnvironments(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("starts local test environments (real Kubernetes processes); skipped with -short")
	}
}

// requireDouble skips a test that proves the suite's verdicts by switching
// faults on, or reading counters of, the HAMi protocol double through its
// test routes: a real HAMi scheduler ($GPU_LAB_HAMI_BINARY) has no such
// routes. Every test that does not need them still runs against it.
func requireDouble(tb testing.TB, e *testenv.Env) {
	tb.Helper()
	if !e.RunsDouble() {
		tb.Skipf("skipped against a real HAMi: the test breaks HAMi on purpose, through the %s's fault switches and counters (its test "+
			"routes), to show the suite's verdict; this environment runs %s, which has none", testenv.DoubleName, e.HAMi())
	}
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
