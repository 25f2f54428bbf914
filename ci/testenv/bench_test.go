package testenv

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// BenchmarkStart boots the default lab (two tenants) and reports boot time
// and memory (targets: ≤ 5 s warm, ≤ 1 GiB; reported, never asserted), with
// the memory and processor time of each kind of component and the median
// time of each start step over the tenants (see bootSamples.report). The
// binaries are built before the timer starts.
func BenchmarkStart(b *testing.B) {
	requireProcesses(b)
	bins := benchBinaries(b)
	var tables []string
	b.Run("lab=seed", func(b *testing.B) {
		_, _, _, table := bootLab(b, lab.Default(), bins)
		tables = append(tables, table)
	})
	printTables(tables)
}

// BenchmarkTenants boots labs of 1, 2, 4 and 8 tenants (one worker with
// one L4 each) and reports how the environment's cost grows with tenants:
// boot time and memory, per tenant, the marginal cost of each tenant over
// the previous size (the slope between the two sizes), and the breakdown
// by component and start step. Reported, never asserted.
func BenchmarkTenants(b *testing.B) {
	requireProcesses(b)
	bins := benchBinaries(b)
	var prevN int
	var prevBoot, prevMem, prevRSS float64
	for _, n := range []int{1, 2, 4, 8} {
		l := tenantsLab(b, n)
		var boot, mem, rss float64
		var tables []string
		b.Run(fmt.Sprintf("tenants=%d", n), func(b *testing.B) {
			var table string
			boot, mem, rss, table = bootLab(b, l, bins)
			tables = append(tables, table)
			b.ReportMetric(mem/float64(n), "MiB/tenant")
			if prevN > 0 {
				b.ReportMetric((boot-prevBoot)/float64(n-prevN), "marginal-boot-s/tenant")
				b.ReportMetric((mem-prevMem)/float64(n-prevN), "marginal-MiB/tenant")
				b.ReportMetric((rss-prevRSS)/float64(n-prevN), "marginal-rss-sum-MiB/tenant")
			}
		})
		printTables(tables)
		prevN, prevBoot, prevMem, prevRSS = n, boot, mem, rss
	}
}

func benchBinaries(b *testing.B) string {
	b.Helper()
	bins, err := EnsureBinaries(context.Background(), progress())
	if err != nil {
		b.Fatal(err)
	}
	return bins
}

// bootLab starts l b.N times and reports the means (bootSamples.report),
// returning them and the breakdown table.
func bootLab(b *testing.B, l *lab.Lab, bins string) (boot, mem, rss float64, table string) {
	var s bootSamples
	for b.Loop() {
		e, err := Start(context.Background(), l, Options{BinDir: bins})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.add(b, e)
		if err := e.Stop(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	return s.report(b)
}

// printTables prints the breakdown tables once a sub-benchmark has printed
// its result lines: printed while it runs, a table would split a result
// line (which benchstat reads), and logged, testing would cut it to ten
// lines unless -v.
func printTables(tables []string) {
	for _, t := range tables {
		fmt.Print(t)
	}
}

// bootSamples collects what the benchmarks report over their iterations.
type bootSamples struct {
	n          int
	boot       float64            // seconds, summed over iterations
	mem, rss   float64            // MiB (memoryUse.Total, .RSS), summed
	cpu        float64            // processor seconds of every process at ready, summed
	inProcess  float64            // MiB of this process (Go runtime Sys), summed
	kindAnon   map[string]float64 // MiB
	kindFile   map[string]float64 // MiB
	kindCPU    map[string]float64 // seconds
	kindCount  map[string]int
	took, done map[string][]time.Duration // per step, every tenant of every iteration
}

// add records one started environment: its boot time, the resident memory
// of each process, grouped by kind (the part of the name after the
// tenant), and each tenant's step timings.
func (s *bootSamples) add(b *testing.B, e *Env) {
	b.Helper()
	mem, err := e.memory()
	if err != nil {
		_ = e.Stop()
		b.Fatal(err)
	}
	cpu, err := e.cpuTime()
	if err != nil {
		_ = e.Stop()
		b.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if s.kindAnon == nil {
		s.kindAnon, s.kindFile, s.kindCPU, s.kindCount = map[string]float64{}, map[string]float64{}, map[string]float64{}, map[string]int{}
		s.took, s.done = map[string][]time.Duration{}, map[string][]time.Duration{}
	}
	s.n++
	s.boot += e.BootTime().Seconds()
	s.mem += float64(mem.Total) / (1 << 20)
	s.rss += float64(mem.RSS) / (1 << 20)
	s.inProcess += float64(ms.Sys) / (1 << 20)
	for name, v := range mem.ByName {
		kind := name[strings.LastIndexByte(name, '/')+1:]
		s.kindAnon[kind] += float64(v.Anon) / (1 << 20)
		s.kindFile[kind] += float64(v.File) / (1 << 20)
		s.kindCPU[kind] += cpu[name].Seconds()
		s.cpu += cpu[name].Seconds()
		s.kindCount[kind]++
	}
	for _, tn := range e.Tenants() {
		for _, st := range e.stepTimings(tn) {
			s.took[st.Step] = append(s.took[st.Step], st.Took)
			s.done[st.Step] = append(s.done[st.Step], st.Began+st.Took)
		}
	}
}

// report reports the means over the iterations as metrics: boot-s,
// memory-MiB (memoryUse.Total: every page once), rss-sum-MiB (memoryUse.RSS,
// the sum of VmRSS), inprocess-MiB, processes-cpu-s, and per kind of
// component <kind>-anon-MiB (its own memory per instance). It returns the
// mean boot time, memory and RSS sum, and as text the per-kind table
// (anonymous and file-backed resident memory, processor time by ready) and
// the per-step table: the median over tenants of how long each step took and
// when, after its tenant's start, it was done.
func (s *bootSamples) report(b *testing.B) (boot, mem, rss float64, table string) {
	if s.n == 0 {
		return 0, 0, 0, ""
	}
	n := float64(s.n)
	boot, mem, rss = s.boot/n, s.mem/n, s.rss/n
	b.ReportMetric(boot, "boot-s")
	b.ReportMetric(mem, "memory-MiB")
	b.ReportMetric(rss, "rss-sum-MiB")
	b.ReportMetric(s.inProcess/n, "inprocess-MiB")
	b.ReportMetric(s.cpu/n, "processes-cpu-s")
	var t strings.Builder
	t.WriteString("per process of each kind (mean): anonymous + file-backed resident memory, processor time by ready\n")
	for _, kind := range slices.Sorted(maps.Keys(s.kindAnon)) {
		c := float64(s.kindCount[kind])
		b.ReportMetric(s.kindAnon[kind]/c, kind+"-anon-MiB")
		fmt.Fprintf(&t, "  %-26s %5.0f + %3.0f MiB %6.2f cpu-s × %g\n", kind, s.kindAnon[kind]/c, s.kindFile[kind]/c, s.kindCPU[kind]/c, c/n)
	}
	t.WriteString("start steps, median over tenants (took / done at):\n")
	steps := slices.SortedFunc(maps.Keys(s.done), func(x, y string) int {
		return int(median(s.done[x]) - median(s.done[y]))
	})
	for _, st := range steps {
		fmt.Fprintf(&t, "  %-62s %6.2fs  %6.2fs\n", st, median(s.took[st]).Seconds(), median(s.done[st]).Seconds())
	}
	return boot, mem, rss, fmt.Sprintf("--- %s\n%s", b.Name(), t.String())
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(d))
	return s[len(s)/2]
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
