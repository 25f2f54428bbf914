package testenv

import (
	"context"
	"runtime"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// BenchmarkStart boots the default lab and reports boot time and resident
// memory (targets: ≤ 10 s warm, ≤ 1.5 GiB; reported, not asserted). The
// binaries are built before the timer starts.
func BenchmarkStart(b *testing.B) {
	requireProcesses(b)
	bins, err := EnsureBinaries(context.Background(), progress())
	if err != nil {
		b.Fatal(err)
	}
	var boot, rss, self float64
	for b.Loop() {
		e, err := Start(context.Background(), lab.Default(), Options{BinDir: bins})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		total, byName, err := e.ResidentMemory()
		if err != nil {
			_ = e.Stop()
			b.Fatal(err)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		boot += e.BootTime().Seconds()
		rss += float64(total) / (1 << 20)
		self += float64(ms.Sys) / (1 << 20)
		for name, v := range byName {
			b.Logf("%-34s %6.0f MiB", name, float64(v)/(1<<20))
		}
		if err := e.Stop(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	n := float64(b.N)
	b.ReportMetric(boot/n, "boot-s")
	b.ReportMetric(rss/n, "processes-MiB")
	b.ReportMetric(self/n, "inprocess-MiB")
}
