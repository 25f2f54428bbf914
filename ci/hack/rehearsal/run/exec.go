package run

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// usage is how a process ended and what it used.
type usage struct {
	Wall     time.Duration
	MaxRSS   int64 // bytes
	ExitCode int
}

// stream says which output of a process a line came from.
type stream string

const (
	stdout stream = "stdout"
	stderr stream = "stderr"
)

// Executor runs one command to its end, writing all its output to log and
// handing each line to line as it comes. A process that ran and exited
// non-zero is not an error: usage.ExitCode says so. An error means it
// could not be run or waited for.
type Executor interface {
	run(ctx context.Context, c command, log io.Writer, line func(stream, string)) (usage, error)
}

// Processes is the real Executor.
type Processes struct{}

// stopGrace is how long a labctl interrupted by the rehearsal (Ctrl-C, a
// timeout) gets to stop on its own: labctl up then tears down, writing
// diagnostics first (ci/stages Runner).
const stopGrace = 3 * time.Minute

// run starts argv with the rehearsal's environment plus c.Env. On
// cancellation it sends SIGINT (labctl's own interruption), or c.Stop to
// the command's whole process group, and kills only after stopGrace.
func (Processes) run(ctx context.Context, c command, log io.Writer, line func(stream, string)) (usage, error) {
	if len(c.Args) == 0 {
		return usage{}, errors.New("run: empty command")
	}
	cmd := exec.CommandContext(ctx, c.Args[0], c.Args[1:]...)
	cmd.Env = mergeEnv(os.Environ(), c.Env)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	// A rehearsal that is killed (SIGKILL, a lost runner) takes its labctl
	// with it (prctl PR_SET_PDEATHSIG, kept across nsenter's exec): left
	// running, it would go on building a lab in a daemon that the next
	// rehearsal command removes. A rehearsal that is interrupted still
	// interrupts labctl first and waits for it (Cancel, WaitDelay).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if sig := c.Stop; sig != 0 {
		// Its own process group, signalled whole: as a terminal's Ctrl-C
		// reaches labctl and the helm, kubectl and docker it runs, and as a
		// runner that dies takes them all.
		cmd.SysProcAttr.Setpgid = true
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, sig) }
	}
	cmd.WaitDelay = stopGrace
	var mu sync.Mutex
	out, outDone := lineWriter(&mu, log, func(s string) { line(stdout, s) })
	errw, errDone := lineWriter(&mu, log, func(s string) { line(stderr, s) })
	cmd.Stdout, cmd.Stderr = out, errw
	start := time.Now()
	err := cmd.Run()
	out.Close()
	errw.Close()
	<-outDone
	<-errDone
	u := usage{Wall: time.Since(start)}
	if cmd.ProcessState != nil {
		u.ExitCode = cmd.ProcessState.ExitCode()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			u.MaxRSS = ru.Maxrss * 1024 // getrusage(2): ru_maxrss in kilobytes
		}
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return u, nil
	}
	if err != nil {
		return u, fmt.Errorf("run %s: %w", c, err)
	}
	return u, nil
}

// lineWriter is a pipe whose lines are written to log (one writer shared by
// both streams, hence mu) and handed to line; done closes when the pipe
// has been read to its end.
func lineWriter(mu *sync.Mutex, log io.Writer, line func(string)) (io.WriteCloser, <-chan struct{}) {
	r, w := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			mu.Lock()
			fmt.Fprintln(log, sc.Text())
			mu.Unlock()
			line(sc.Text())
		}
		// A line longer than the buffer: drain so the process never blocks.
		_, _ = io.Copy(io.Discard, r)
	}()
	return w, done
}
