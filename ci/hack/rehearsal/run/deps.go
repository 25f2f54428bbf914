package run

import (
	"context"
	"log/slog"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
)

// Daemon starts and stops the private Docker daemon.
type Daemon interface {
	start(ctx context.Context) (hostdaemon.Layout, error)
	stop(ctx context.Context) error
}

// PrivateDaemon is the real Daemon: hostdaemon in its namespace.
type PrivateDaemon struct {
	Dir, Netns string
	// Wrapper is a built runc-capfilter; empty builds one (hostdaemon).
	Wrapper string
	Log     *slog.Logger
}

func (d PrivateDaemon) start(ctx context.Context) (hostdaemon.Layout, error) {
	return hostdaemon.Start(ctx, hostdaemon.Options{Dir: d.Dir, Netns: d.Netns, Wrapper: d.Wrapper, Log: d.Log})
}

// stop removes everything of the daemon, its data root too: the bundle is
// loaded anew by the next rehearsal, as a user's first `labctl up
// --images` loads it.
func (d PrivateDaemon) stop(ctx context.Context) error {
	return hostdaemon.Stop(ctx, hostdaemon.StopOptions{Dir: d.Dir, Netns: d.Netns, Log: d.Log})
}

// Deps are the rehearsal's edges to processes, the daemon and the clock;
// tests give fakes.
type Deps struct {
	Exec   Executor
	Daemon Daemon
	Probe  Probe
	Now    func() time.Time
	// Ticker ticks every HeartbeatCheck while a step runs (time.NewTicker
	// when nil); stop ends it.
	Ticker func(d time.Duration) (c <-chan time.Time, stop func())
	// After is time.After unless a test says otherwise: the fault's
	// fallback and the pause between two looks at its recovery.
	After func(d time.Duration) <-chan time.Time
}

func (d Deps) after(t time.Duration) <-chan time.Time {
	if d.After != nil {
		return d.After(t)
	}
	return time.After(t)
}

func (d Deps) ticker(every time.Duration) (<-chan time.Time, func()) {
	if d.Ticker != nil {
		return d.Ticker(every)
	}
	t := time.NewTicker(every)
	return t.C, t.Stop
}

func (d Deps) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}
