package daggerrun

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Heartbeat is how often a quiet call says it still runs.
const Heartbeat = 30 * time.Second

// CallResult is what the report says of one call.
type CallResult struct {
	Name, Command string
	Wall          time.Duration
	ExitCode      int
	// Tail are the call's last lines (the summary a failed call prints).
	Tail []string
	Log  string
	// EngineCache is the engine's state on disk after the call, FreeDisk
	// the disk's free space then (0: not measured).
	EngineCache, FreeDisk int64
}

// env is the dagger CLI's environment: the private daemon (the runner host
// names a container on it), the engine, and no telemetry, update check or
// nag (none can reach the internet from the namespace; dagger v0.21.8
// analytics/analytics.go:76 DO_NOT_TRACK, cmd/dagger/main.go:330
// DAGGER_NO_UPDATE_CHECK, dagql/idtui/frontend.go:67 DAGGER_NO_NAG). The
// logs are evidence read as text: NO_COLOR (termenv.EnvNoColor, read at
// cmd/dagger/main.go:701) keeps ANSI colour codes out of them.
func (r *daggerRun) env() []string {
	return append(os.Environ(),
		"DOCKER_HOST="+r.layout.DockerHost(),
		"_EXPERIMENTAL_DAGGER_RUNNER_HOST="+r.runner,
		"DO_NOT_TRACK=1", "DAGGER_NO_UPDATE_CHECK=1", "DAGGER_NO_NAG=1", "NO_COLOR=1")
}

// command is the dagger CLI with args, inside the daemon's namespace, in
// the clone.
func (r *daggerRun) command(ctx context.Context, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "nsenter", append([]string{"--net=" + r.nsPath, "--", r.o.Dagger.CLI()}, args...)...)
	cmd.Dir = r.clone
	cmd.Env = r.env()
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// dagger runs the CLI with args and returns its standard output only: the
// CLI writes its progress to standard error (for `dagger core version`,
// the whole session trace, which the report quoted as the version), and
// an error carries that instead.
func (r *daggerRun) dagger(ctx context.Context, args []string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := r.command(ctx, args)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out, nil
}

// call runs one README command, its output into its log with a heartbeat
// line at least every Heartbeat, and keeps the reports it names. A call
// that is not a verdict fails the run when it fails.
func (r *daggerRun) call(ctx context.Context, c Call) error {
	logPath := filepath.Join(r.o.Evidence, "logs", c.Name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer f.Close()
	line := c.README()
	fmt.Fprintf(f, "$ %s\n# each line below starts with the time since the call started, then dagger's own words\n", line)
	r.log.Info("running", "call", c.Name, "command", line, "log", logPath)
	cmd := r.command(ctx, slices.Clone(c.Args))
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	var mu sync.Mutex
	var tail []string
	start := time.Now()
	last := start
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			fmt.Fprintf(f, "%s %s\n", elapsed(time.Since(start)), sc.Text())
			mu.Lock()
			tail = append(tail, sc.Text())
			if len(tail) > 20 {
				tail = tail[1:]
			}
			last = time.Now()
			mu.Unlock()
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	stop := r.heartbeat(c.Name, start, &mu, &last, &tail)
	err = cmd.Run()
	pw.Close()
	<-done
	stop()
	res := CallResult{Name: c.Name, Command: line, Wall: time.Since(start), ExitCode: cmd.ProcessState.ExitCode(), Tail: tail, Log: logPath}
	if used, free, cerr := r.engineCache(ctx); cerr != nil {
		r.log.Warn("could not measure the engine's cache", "call", c.Name, "err", cerr)
	} else {
		res.EngineCache, res.FreeDisk = used, free
	}
	r.rep.Calls = append(r.rep.Calls, res)
	r.log.Info("call finished", "call", c.Name, "exit", res.ExitCode, "wall", res.Wall.Round(time.Second))
	if kerr := r.keep(c); kerr != nil {
		return kerr
	}
	var exit *exec.ExitError
	switch {
	case err == nil, c.Verdict && errors.As(err, &exit):
		return nil
	default:
		return fmt.Errorf("%s exited %d: %s (its log: %s)", line, res.ExitCode, strings.Join(lastN(tail, 3), " / "), logPath)
	}
}

// heartbeat logs that the call still runs, with its last line, whenever it
// was quiet for Heartbeat; stop ends it.
func (r *daggerRun) heartbeat(name string, start time.Time, mu *sync.Mutex, last *time.Time, tail *[]string) (stop func()) {
	t := time.NewTicker(Heartbeat)
	quit := make(chan struct{})
	go func() {
		for {
			select {
			case <-quit:
				return
			case now := <-t.C:
				mu.Lock()
				quiet, l := now.Sub(*last), lastN(*tail, 1)
				mu.Unlock()
				if quiet >= Heartbeat-time.Second {
					r.log.Info("still running", "call", name, "elapsed", now.Sub(start).Round(time.Second), "last", strings.Join(l, ""))
				}
			}
		}
	}()
	return func() { t.Stop(); close(quit) }
}

// keep moves the reports directory the call names from the clone into the
// evidence.
func (r *daggerRun) keep(c Call) error {
	if c.Keep == "" {
		return nil
	}
	from, to := filepath.Join(r.clone, c.Keep), filepath.Join(r.o.Evidence, c.KeepAs)
	if _, err := os.Stat(from); errors.Is(err, os.ErrNotExist) {
		r.log.Warn("the call's reports directory is not there", "dir", from)
		return nil
	}
	if err := os.RemoveAll(to); err != nil {
		return err
	}
	if out, err := exec.Command("mv", from, to).CombinedOutput(); err != nil {
		return fmt.Errorf("keep %s as %s: %w: %s", from, to, err, out)
	}
	return nil
}

// elapsed is a log line's time since its call started, fixed width so the
// lines stay aligned: dagger's plain progress gives each span's own
// duration, never when a line was printed, so a slow stretch between spans
// (a pull, an export, a cache miss) shows only by this prefix.
func elapsed(d time.Duration) string {
	d = d.Round(100 * time.Millisecond)
	m := int(d / time.Minute)
	return fmt.Sprintf("[+%02d:%04.1f]", m, (d - time.Duration(m)*time.Minute).Seconds())
}

func lastN(s []string, n int) []string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
