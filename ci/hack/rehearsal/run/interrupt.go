package run

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/stages"
)

// Interrupt is `rehearse run --interrupt-up`: the first `labctl up` is sent
// Signal After into Stage, and the rehearsal then goes on as always — a
// second `labctl up` on the same state directory, the suite, `labctl down`
// and the check that nothing is left (issue 43). SIGKILL is a crashed
// runner; SIGINT is Ctrl-C or a CI job's cancellation, after which labctl
// tears the lab down itself (or, with --keep, says what it kept).
type Interrupt struct {
	Stage  string
	Signal syscall.Signal
	After  time.Duration
}

// interruptSignals are the signals --interrupt-up takes, by the name kill(1)
// gives them.
var interruptSignals = map[string]syscall.Signal{"KILL": syscall.SIGKILL, "INT": syscall.SIGINT, "TERM": syscall.SIGTERM}

// ParseInterrupt reads STAGE:SIGNAL[+DELAY], e.g. "workers:KILL+20s".
func ParseInterrupt(s string) (*Interrupt, error) {
	if s == "" {
		return nil, nil
	}
	names := stageNames()
	stage, rest, ok := strings.Cut(s, ":")
	sig, delay, hasDelay := strings.Cut(rest, "+")
	if !ok || !slices.Contains(names, stage) {
		return nil, fmt.Errorf("--interrupt-up %q: want STAGE:SIGNAL[+DELAY] with STAGE one of %s, e.g. workers:KILL+20s",
			s, strings.Join(names, ", "))
	}
	signal, ok := interruptSignals[strings.TrimPrefix(strings.ToUpper(sig), "SIG")]
	if !ok {
		return nil, fmt.Errorf("--interrupt-up %q: signal %q: want KILL, INT or TERM", s, sig)
	}
	in := &Interrupt{Stage: stage, Signal: signal}
	if hasDelay {
		d, err := time.ParseDuration(delay)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("--interrupt-up %q: delay %q: want a duration such as 20s", s, delay)
		}
		in.After = d
	}
	return in, nil
}

func stageNames() []string {
	var out []string
	for _, s := range stages.All() {
		out = append(out, s.Name())
	}
	return out
}

func (in Interrupt) String() string {
	return fmt.Sprintf("%s %s into stage %s", unix(in.Signal), in.After, in.Stage)
}

func unix(s syscall.Signal) string {
	for n, v := range interruptSignals {
		if v == s {
			return "SIG" + n
		}
	}
	return s.String()
}

// InterruptRecord is what rehearsal.md says of the interruption.
type InterruptRecord struct {
	Interrupt
	// Sent: the signal went to labctl up At after it started; else up
	// ended first (Err).
	Sent bool
	At   time.Duration
	// ExitCode and Wall are the interrupted up's; Left is what the private
	// daemon still held when it had returned (containers and networks).
	ExitCode int
	Wall     time.Duration
	Left     []string
	Err      string
}

// stepUpInterrupted names the interrupted `labctl up` (its log
// labctl-up-interrupted.log).
const stepUpInterrupted step = "up-interrupted"

// interruptedUp runs the first `labctl up` and sends it the signal once the
// stage's start line ("· STAGE started", ci/cmd/labctl/progress.go) is
// out and After has passed. It fails only when up could not be run or
// ended before the signal: an interruption that did not happen proves
// nothing.
func (rh *runState) interruptedUp(ctx context.Context, in Interrupt) error {
	rec := &InterruptRecord{Interrupt: in}
	rh.r.Interrupt = rec
	c := up(rh.o.Paths, rh.o.Keep)
	c.Step, c.Stop = stepUpInterrupted, in.Signal
	uctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := rh.d.now()
	sent := make(chan time.Duration, 1)
	rh.setOnLine(func(s step, line string) {
		if s != stepUpInterrupted || !stageStarted(line, in.Stage) {
			return
		}
		go func() {
			select {
			case <-rh.d.after(in.After):
			case <-uctx.Done():
				return
			}
			select {
			case sent <- rh.d.now().Sub(start):
				rh.log.Warn("interrupting labctl up", "signal", unix(in.Signal), "stage", in.Stage, "after", in.After)
				cancel()
			default:
			}
		}()
	})
	res, err := rh.step(uctx, c)
	rh.setOnLine(nil)
	rec.ExitCode, rec.Wall = res.ExitCode, res.Wall
	rec.Left = rh.d.Probe.left(context.WithoutCancel(ctx), rh.o.Paths)
	select {
	case at := <-sent:
		rec.Sent, rec.At = true, at
	default:
		rec.Err = fmt.Sprintf("labctl up ended (exit %d) before it was %s into stage %s: nothing was interrupted",
			res.ExitCode, in.After, in.Stage)
	}
	if err != nil {
		return err
	}
	if !rec.Sent {
		return fmt.Errorf("--interrupt-up: %s", rec.Err)
	}
	return nil
}

// stageStarted is labctl up's line for the stage's start.
func stageStarted(line, stage string) bool {
	f := strings.Fields(line)
	return len(f) == 3 && f[0] == "·" && f[1] == stage && f[2] == "started"
}

func (rec *InterruptRecord) markdown(w func(string, ...any)) {
	w("\n## Interrupted labctl up\n\n")
	if !rec.Sent {
		w("Asked: %s. Not made: %s\n", rec.Interrupt, rec.Err)
		return
	}
	w("%s was sent %s after the first `labctl up` started (%s after the start of stage %s); it returned %s later with exit %d (%s in all). ",
		unix(rec.Signal), rec.At.Round(100*time.Millisecond), rec.After, rec.Stage,
		(rec.Wall - rec.At).Round(100*time.Millisecond), rec.ExitCode, rec.Wall.Round(100*time.Millisecond))
	if len(rec.Left) == 0 {
		w("The private daemon then held no container and no network of the lab.\n")
	} else {
		w("The private daemon then held:\n\n")
		for _, l := range rec.Left {
			w("- %s\n", l)
		}
	}
	w("\nThe `up` step below is the second `labctl up`, on the same state directory.\n")
}
