package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

// process is one started component. Every process gets its own process group
// so Stop can signal it together with anything it forked.
type process struct {
	name    string // component name used in errors, e.g. "tenant-a/kube-apiserver"
	logPath string
	cmd     *exec.Cmd
	// killOnly skips SIGTERM: konnectivity's agent ignores it.
	killOnly bool

	done chan struct{} // closed when the process has exited
	// signalMu holds a Suspend or Resume from its signal until /proc shows
	// the signal's effect, so one cannot undo the other's signal before
	// that one has seen it (signalState).
	signalMu sync.Mutex
	mu       sync.Mutex
	waitErr  error
	stopped  bool // Stop asked it to exit; an exit is then not a failure
	// bound: it listens on all its ports (startBound). Until then it may
	// lose a port, exit and be replaced, which is no failure.
	bound bool
}

func (p *process) markBound() {
	p.mu.Lock()
	p.bound = true
	p.mu.Unlock()
}

func (p *process) isBound() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.bound
}

// startProcess runs bin with args, stdout and stderr appended to logPath,
// in this process's environment plus env ("NAME=value", later wins).
func startProcess(name, bin string, args []string, logPath string, env ...string) (*process, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("start %s: log file: %w", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Dir = filepath.Dir(logPath)
	cmd.SysProcAttr = sysProcAttr()
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	fmt.Fprintf(logf, "# %s\n# %s %s\n", time.Now().Format(time.RFC3339Nano), bin, strings.Join(args, " "))
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, logPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		logf.Close()
		p.mu.Lock()
		p.waitErr = err
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

func (p *process) pid() int { return p.cmd.Process.Pid }

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// exitError describes an unexpected exit with the tail of the log, or nil
// while the process runs.
func (p *process) exitError() error {
	if !p.exited() {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return nil
	}
	state := "exited"
	if p.waitErr != nil {
		state = p.waitErr.Error()
	}
	return fmt.Errorf("%s %s unexpectedly; log %s ends with:\n%s", p.name, state, p.logPath, p.tail(20))
}

// tail returns the last n lines of the log.
func (p *process) tail(n int) string { return bincache.TailFile(p.logPath, n) }

// stop ends the process group: SIGTERM, then SIGKILL after grace (at once for
// killOnly). It returns when the process has been reaped. Once the leader is
// reaped its PID may be reused, so nothing is signalled after that.
func (p *process) stop(grace time.Duration) error {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
	if p.exited() {
		return nil
	}
	if !p.killOnly {
		killGroup(p.pid(), syscall.SIGTERM)
		select {
		case <-p.done:
			return nil
		case <-time.After(grace):
		}
	}
	killGroup(p.pid(), syscall.SIGKILL)
	select {
	case <-p.done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("stop %s (pid %d): still running 10s after SIGKILL", p.name, p.pid())
	}
}

// killGroup signals the process group the component leads (Setpgid), which
// includes anything it forked.
func killGroup(pid int, sig syscall.Signal) {
	_ = syscall.Kill(-pid, sig)
}

// waitFor polls check every interval until it returns true, ctx ends, or one
// of procs exits (its log tail then explains why). Written on
// apimachinery's wait.PollUntilContextCancel it was as long (23 lines
// against 23): the exit check and the last answer still have to be carried
// out of the condition and told apart from the deadline, so the loop stays.
func waitFor(ctx context.Context, what string, interval time.Duration, procs []*process, check func(context.Context) (bool, error)) error {
	var last error
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		for _, p := range procs {
			if err := p.exitError(); err != nil {
				return fmt.Errorf("waiting for %s: %w", what, err)
			}
		}
		ok, err := check(ctx)
		if ok {
			return nil
		}
		// An attempt cut off by the deadline says nothing about the
		// component; keep the last answer that did.
		if err != nil && (last == nil || ctx.Err() == nil) {
			last = err
		}
		select {
		case <-ctx.Done():
			var b bytes.Buffer
			fmt.Fprintf(&b, "waiting for %s: %v", what, ctx.Err())
			if last != nil {
				fmt.Fprintf(&b, " (last error: %v)", last)
			}
			for _, p := range procs {
				fmt.Fprintf(&b, "\n%s log %s ends with:\n%s", p.name, p.logPath, p.tail(15))
			}
			return errors.New(b.String())
		case <-t.C:
		}
	}
}
