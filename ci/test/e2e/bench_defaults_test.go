package e2e

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/suite"
	"github.com/gpu-lab/gpu-lab/ci/testenv"
)

// BenchmarkSuiteAtHAMiDefaults runs the suite in an environment of its own
// with HAMi's and kube-scheduler's defaults (--kube-qps 5 --kube-burst 10,
// backoff 1 s / 10 s), the lab as configured before gpu-lab chose its
// settings: compare with HAMI-FACTS.md §5.6, where the real HAMi v2.10.0
// took 45-49 s for the suite and 34-38 s for TC-14 this way.
func BenchmarkSuiteAtHAMiDefaults(b *testing.B) {
	if testing.Short() {
		b.Skip("starts a local test environment")
	}
	l := lab.Default()
	l.HAMi.KubeQPS, l.HAMi.KubeBurst = 5, 10
	l.HAMi.PodInitialBackoffSeconds, l.HAMi.PodMaxBackoffSeconds = 1, 10
	e, err := testenv.Start(context.Background(), l,
		testenv.Options{Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Stop()
	var wall, tc14, lockFailures float64
	for i := 0; i < b.N; i++ {
		start := time.Now()
		run, err := suite.Run(context.Background(), config(e))
		if err != nil {
			b.Fatal(err)
		}
		if !run.OK() {
			logRun(b, run)
			b.Fatal("suite failed")
		}
		wall += time.Since(start).Seconds()
		c := byID(run)["TC-14"]
		tc14 += time.Duration(c.Duration).Seconds()
		lockFailures += c.Metrics["lock_failures"]
	}
	n := float64(b.N)
	b.ReportMetric(wall/n, "s/suite")
	b.ReportMetric(tc14/n, "s/TC-14")
	b.ReportMetric(lockFailures/n, "TC-14-lock-failures")
}
