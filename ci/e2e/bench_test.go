package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/suite"
)

// BenchmarkSuite reports the wall time of the whole suite on the local
// environment, concurrent and --serial, and the speed-up between them.
// Timings are reported, never asserted.
func BenchmarkSuite(b *testing.B) {
	e := needEnv(b)
	var conc, serial time.Duration
	for i := 0; i < b.N; i++ {
		for _, s := range []bool{false, true} {
			cfg := config(e)
			cfg.Serial = s
			start := time.Now()
			run, err := suite.Run(context.Background(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			if !run.OK() {
				logRun(b, run)
				b.Fatalf("suite failed (serial=%v)", s)
			}
			if s {
				serial += time.Since(start)
			} else {
				conc += time.Since(start)
			}
		}
	}
	n := float64(b.N)
	b.ReportMetric(conc.Seconds()/n, "s/concurrent")
	b.ReportMetric(serial.Seconds()/n, "s/serial")
	b.ReportMetric(serial.Seconds()/conc.Seconds(), "speedup")
}
