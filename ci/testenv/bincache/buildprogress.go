package bincache

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"time"
)

// buildEstimate is what the first build takes, said before it starts and
// with every progress line: measured cold (empty module and build caches)
// on a 2-core machine that other work shared; more cores are faster.
const buildEstimate = "10–20 min on 2 cores, less with more"

// A long build speaks after firstProgress and then every progressEvery, so
// a reader never waits more than half a minute for a sign of life.
const (
	firstProgress = 10 * time.Second
	progressEvery = 25 * time.Second
)

// buildStatus is what a build log (`go build -v` output) tells about the
// build so far.
type buildStatus struct {
	Downloaded int    // modules fetched ("go: downloading …" lines)
	Compiled   int    // non-standard-library packages compiled
	Last       string // the latest line: "compiled <package>" or "downloading <module> <version>"
}

// readBuildStatus reads a build log written by goBuild. `go build -v`
// prints each package it compiles (not the cached ones) by import path;
// the go command prints "go: downloading <module> <version>" per module.
func readBuildStatus(log string) buildStatus {
	var s buildStatus
	for _, line := range strings.Split(log, "\n") {
		switch {
		case strings.HasPrefix(line, "go: downloading "):
			s.Downloaded++
			s.Last = strings.TrimPrefix(line, "go: ")
		case line == "" || strings.HasPrefix(line, "#") || strings.ContainsAny(line, " \t"):
			// the command line, compiler messages
		case strings.Contains(strings.SplitN(line, "/", 2)[0], "."):
			// a module path; standard library paths have no dot in their
			// first element and are mostly cached already
			s.Compiled++
			s.Last = "compiled " + line
		}
	}
	return s
}

// progressLine is one progress line of the test binaries' build.
func progressLine(s buildStatus, elapsed time.Duration, total int) string {
	return goBuildLine("Kubernetes "+KubernetesVersion+" test binaries", buildEstimate, s, elapsed, total)
}

// goBuildLine is one progress line of a build of label: elapsed time, what
// it is doing, how far (total packages when known) and the estimate.
func goBuildLine(label, estimate string, s buildStatus, elapsed time.Duration, total int) string {
	var what string
	switch {
	case s.Compiled > 0 && total > 0:
		what = fmt.Sprintf("%d of at most %d packages compiled (cached ones are skipped)", s.Compiled, total)
	case s.Compiled > 0:
		what = fmt.Sprintf("%d packages compiled", s.Compiled)
	case s.Downloaded > 0:
		what = fmt.Sprintf("%d modules downloaded", s.Downloaded)
	default:
		what = "no package compiled yet (resolving modules, or linking what is cached)"
	}
	if s.Last != "" {
		what += "; last " + s.Last
	}
	return fmt.Sprintf("building %s: %s elapsed, %s (a first build takes %s)",
		label, elapsed.Round(time.Second), what, estimate)
}

// reportBuild logs a progress line for the build writing logPath at every
// tick until ctx ends. total, read once it is known, is the number of
// packages the build needs (0 until then).
func reportBuild(ctx context.Context, log *slog.Logger, logPath string, start time.Time, total func() int, tick <-chan time.Time) {
	reportGoBuild(ctx, log, logPath, start, total, tick, progressLine)
}

func reportGoBuild(ctx context.Context, log *slog.Logger, logPath string, start time.Time, total func() int, tick <-chan time.Time,
	line func(buildStatus, time.Duration, int) string) {
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick:
			b, _ := os.ReadFile(logPath)
			log.Info(line(readBuildStatus(string(b)), now.Sub(start), total()), "log", logPath)
		}
	}
}

// countPackages counts the non-standard-library packages the build needs
// (`go list -deps`), so progress can say how far it is; 0 when it cannot.
func countPackages(ctx context.Context, src string) int {
	args := append([]string{"list", "-deps", "-f", "{{if not .Standard}}p{{end}}"}, buildPackages...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly -buildvcs=false")
	out, err := cmd.Output()
	if err != nil {
		return 0
	}
	return strings.Count(string(out), "p\n")
}

// speakWhileBuilding reports the progress of the build writing logPath
// until the returned stop is called.
func speakWhileBuilding(ctx context.Context, log *slog.Logger, src, logPath string) (stop func()) {
	return SpeakWhileGoBuild(ctx, log, "Kubernetes "+KubernetesVersion+" test binaries", buildEstimate, logPath,
		func(ctx context.Context) int { return countPackages(ctx, src) })
}

// SpeakWhileGoBuild logs, until the returned stop is called, a progress
// line for the `go build -v` writing logPath after firstProgress and then
// every progressEvery: elapsed time, packages compiled (of count's total,
// when it answers; it runs once, concurrently) and the last one, the
// estimate and the log. Other long Go builds (ci/hack/rehearsal/imagebuild)
// speak through it too, so every build reads the same.
func SpeakWhileGoBuild(ctx context.Context, log *slog.Logger, label, estimate, logPath string,
	count func(context.Context) int) (stop func()) {
	line := func(s buildStatus, elapsed time.Duration, total int) string {
		return goBuildLine(label, estimate, s, elapsed, total)
	}
	ctx, cancel := context.WithCancel(ctx)
	start := time.Now()
	totalCh := make(chan int, 1)
	go func() { totalCh <- count(ctx) }()
	total := 0
	totalFn := func() int {
		select {
		case total = <-totalCh:
		default:
		}
		return total
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		reportGoBuild(ctx, log, logPath, start, totalFn, ticks(ctx, firstProgress, progressEvery), line)
	}()
	return func() {
		cancel()
		<-done
	}
}

// ticks sends the time after first and then after every interval until
// ctx ends.
func ticks(ctx context.Context, first, every time.Duration) <-chan time.Time {
	ch := make(chan time.Time)
	go func() {
		wait := first
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-time.After(wait):
				select {
				case ch <- now:
				case <-ctx.Done():
					return
				}
			}
			wait = every
		}
	}()
	return ch
}

// gaveUp is the error of a build its caller's deadline (or cancellation)
// ended: what ended it, after how long, how far the build got and where its
// log is — "context deadline exceeded" alone reads like a hang of ours.
func gaveUp(cause error, elapsed time.Duration, s buildStatus, logPath string) error {
	what := "no package compiled yet"
	if s.Compiled > 0 {
		what = fmt.Sprintf("%d packages compiled", s.Compiled)
	}
	return fmt.Errorf("building the Kubernetes %s test binaries: gave up after %s, %s; the log is at %s: %w",
		KubernetesVersion, elapsed.Round(time.Second), what, logPath, cause)
}
