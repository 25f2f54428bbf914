package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// Components that take only a port number (kube-apiserver, kube-scheduler,
// kube-controller-manager, KWOK, konnectivity server and agent, etcd-embed)
// are started by startBound: it waits until the process itself listens on
// every port it was given, and when another process took one of them
// between the allocator's probe and the component's bind, it stops the
// component and starts it again on new ports. The environment never fails
// because a port was taken.

// addrInUse is the text of EADDRINUSE; every component is written in Go,
// whose net package reports a lost bind as "listen tcp …: bind: address
// already in use". Some log it and exit (kube-*, KWOK, etcd-embed), some log
// it and keep running without that listener (konnectivity's health and admin
// servers), so the log is watched, not only the exit.
const addrInUse = "address already in use"

// maxBindAttempts bounds the restarts of one component; each attempt has
// fresh ports, so running out means the machine has no free ports to give.
const maxBindAttempts = 8

// errPortTaken marks a start that lost one of its ports to another process.
var errPortTaken = errors.New("a port was taken by another process")

// portMoved is called after a component's ports changed, before it starts
// again, so whatever carries the old port outside its arguments (the
// kubeconfigs carry the API server's) follows.
type portMoved func() error

// startBound starts a component whose args carry the current values of
// ports and returns once the process listens on all of them. When a bind
// fails, every port gets a new value, each argument naming an old one
// (`--flag=N`, `host:N` or a bare `N`) is rewritten, moved runs, and the
// component starts again. Only the final process stays in the environment.
// env is added to the component's environment.
func (e *Env) startBound(ctx context.Context, name, bin string, args []string, logPath string, ports []*int, moved portMoved,
	env ...string) (*process, error) {
	args = append([]string(nil), args...)
	for attempt := 1; ; attempt++ {
		offset := fileSize(logPath)
		p, err := e.start(name, bin, args, logPath, env...)
		if err != nil {
			return nil, err
		}
		err = waitBound(ctx, p, portValues(ports), offset)
		if err == nil {
			p.markBound()
			return p, nil
		}
		if !errors.Is(err, errPortTaken) || attempt == maxBindAttempts {
			if errors.Is(err, errPortTaken) {
				err = fmt.Errorf("%w; gave up after %d attempts, each on new ports", err, attempt)
			}
			return p, err
		}
		old := portValues(ports)
		if err := p.stop(0); err != nil { // it lost its bind: nothing to drain
			return p, err
		}
		e.forget(p)
		for _, f := range ports {
			if *f, err = e.ports.replacement(); err != nil {
				return nil, err
			}
		}
		args = rewritePorts(args, old, portValues(ports))
		e.log.Info("port taken by another process; starting again on new ports",
			"component", name, "was", old, "now", portValues(ports), "attempt", attempt+1)
		e.countRebind(name)
		if moved != nil {
			if err := moved(); err != nil {
				return nil, fmt.Errorf("%s moved to ports %v: %w", name, portValues(ports), err)
			}
		}
	}
}

// waitBound returns nil once p listens on every port, errPortTaken when its
// log (from offset on) reports a lost bind, or the reason p exited.
func waitBound(ctx context.Context, p *process, ports []int, offset int64) error {
	logw := &logWatch{path: p.logPath, off: offset}
	taken := func() error {
		return fmt.Errorf("%s could not bind one of ports %v: %w (its log %s says %q)", p.name, ports, errPortTaken, p.logPath, addrInUse)
	}
	t := time.NewTicker(25 * time.Millisecond)
	defer t.Stop()
	for {
		exited := p.exited() // before reading the log: an exit has written all of it
		if logw.contains(addrInUse) {
			return taken()
		}
		if exited {
			if err := p.exitError(); err != nil {
				return fmt.Errorf("waiting for %s to listen on %v: %w", p.name, ports, err)
			}
			return fmt.Errorf("waiting for %s to listen on %v: it was stopped", p.name, ports)
		}
		if listensOn(p.pid(), ports) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s to listen on %v: %w; log %s ends with:\n%s", p.name, ports, ctx.Err(), p.logPath, p.tail(15))
		case <-t.C:
		}
	}
}

func portValues(ports []*int) []int {
	out := make([]int, len(ports))
	for i, p := range ports {
		out[i] = *p
	}
	return out
}

// rewritePorts replaces old[i] by new[i] where an argument ends in it after
// '=' or ':' or is it. Ports are distinct numbers of four or five digits, so
// no other argument ends in one by accident.
func rewritePorts(args []string, old, now []int) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		for j, o := range old {
			s := strconv.Itoa(o)
			if a == s {
				out[i] = strconv.Itoa(now[j])
				break
			}
			if k := len(a) - len(s) - 1; k >= 0 && strings.HasSuffix(a, s) && (a[k] == '=' || a[k] == ':') {
				out[i] = a[:k+1] + strconv.Itoa(now[j])
				break
			}
		}
	}
	return out
}

// forget drops a process that was replaced: it is neither listed nor
// reported as failed.
func (e *Env) forget(p *process) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, q := range e.procs {
		if q == p {
			e.procs = append(e.procs[:i], e.procs[i+1:]...)
			return
		}
	}
}

func (e *Env) countRebind(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.rebinds == nil {
		e.rebinds = map[string]int{}
	}
	e.rebinds[name]++
}

// rebindCounts counts, per component, how often it was started again because
// another process took one of its ports.
func (e *Env) rebindCounts() map[string]int {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]int, len(e.rebinds))
	for k, v := range e.rebinds {
		out[k] = v
	}
	return out
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// logWatch searches a growing log for a text, reading each byte once.
type logWatch struct {
	path  string
	off   int64
	carry []byte // the end of the last read, for a match across two reads
}

func (w *logWatch) contains(text string) bool {
	f, err := os.Open(w.path)
	if err != nil {
		return false
	}
	defer f.Close()
	if _, err := f.Seek(w.off, io.SeekStart); err != nil {
		return false
	}
	b, _ := io.ReadAll(f)
	w.off += int64(len(b))
	buf := append(w.carry, b...)
	if bytes.Contains(buf, []byte(text)) {
		return true
	}
	if keep := len(text) - 1; len(buf) > keep {
		buf = buf[len(buf)-keep:]
	}
	w.carry = append([]byte(nil), buf...)
	return false
}
