package testenv

import (
	"context"
	"fmt"
	"runtime"
	"strings"
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

// BenchmarkTenants boots labs of 1, 2, 4 and 8 tenants (one worker with
// one L4 each) and reports how the environment's cost grows with tenants:
// boot time and resident memory of its processes, per tenant, and the
// marginal cost of each tenant over the previous size. Reported, never
// asserted.
func BenchmarkTenants(b *testing.B) {
	requireProcesses(b)
	bins, err := EnsureBinaries(context.Background(), progress())
	if err != nil {
		b.Fatal(err)
	}
	var prevN int
	var prevBoot, prevRSS float64
	for _, n := range []int{1, 2, 4, 8} {
		l := tenantsLab(b, n)
		var boot, rss float64
		b.Run(fmt.Sprintf("tenants=%d", n), func(b *testing.B) {
			boot, rss = 0, 0
			for b.Loop() {
				e, err := Start(context.Background(), l, Options{BinDir: bins})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				total, _, err := e.ResidentMemory()
				if err != nil {
					_ = e.Stop()
					b.Fatal(err)
				}
				boot += e.BootTime().Seconds()
				rss += float64(total) / (1 << 20)
				if err := e.Stop(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			boot /= float64(b.N)
			rss /= float64(b.N)
			b.ReportMetric(boot, "boot-s")
			b.ReportMetric(rss, "processes-MiB")
			b.ReportMetric(rss/float64(n), "MiB/tenant")
			if prevN > 0 {
				b.ReportMetric((boot-prevBoot)/float64(n-prevN), "marginal-boot-s/tenant")
				b.ReportMetric((rss-prevRSS)/float64(n-prevN), "marginal-MiB/tenant")
			}
		})
		prevN, prevBoot, prevRSS = n, boot, rss
	}
}

// tenantsLab is a lab of n tenants, each with one worker and one L4.
func tenantsLab(tb testing.TB, n int) *lab.Lab {
	tb.Helper()
	var y strings.Builder
	y.WriteString("name: bench\ntenants:\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&y, "  - name: t%d\n    workers:\n      - name: w\n        gpus: [{model: L4, count: 1}]\n", i)
	}
	l, err := lab.Parse([]byte(y.String()))
	if err != nil {
		tb.Fatal(err)
	}
	return l
}
