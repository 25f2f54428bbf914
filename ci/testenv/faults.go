package testenv

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Fault injection: the faults a suite run must survive (a component killed,
// or suspended and resumed) are made through these methods only, so tests
// do not depend on how a component runs. Processes get signals; the bind
// finalizer, which runs inside this process, is stopped or paused in a way
// that looks the same from outside. Health and the environment's watch name
// every component broken this way.

// ComponentFinalizer is gpu-lab's bind finalizer (ci/gpus), which runs in the
// environment's own process; Health, the log and the fault methods name it
// "<tenant>/bind-finalizer".
const ComponentFinalizer = "bind-finalizer"

// States of an in-process component ("" is running).
const (
	stateSuspended = "suspended"
	stateKilled    = "killed"
	stateExited    = "exited"
)

// signalWait bounds how long a fault method waits for the kernel to show
// the signal's effect (the process reaped, or in state T). It only ends a
// broken call; a signal takes effect in milliseconds.
const signalWait = 10 * time.Second

// inProcess is a component running as a goroutine of this process.
type inProcess struct {
	name string
	// run does the component's work until its context ends.
	run    func(context.Context) error
	cancel context.CancelFunc
	state  string
	reason string // why it is not running
}

// inProcessSet holds one environment's in-process components.
type inProcessSet struct {
	mu sync.Mutex
	m  map[string]*inProcess
}

// inProcessByEnv maps each running *Env to its *inProcessSet; an entry is
// dropped when the environment stops.
var inProcessByEnv sync.Map

func (e *Env) inProcessSet() *inProcessSet {
	if s, ok := inProcessByEnv.Load(e); ok {
		return s.(*inProcessSet)
	}
	s, loaded := inProcessByEnv.LoadOrStore(e, &inProcessSet{m: map[string]*inProcess{}})
	if !loaded {
		context.AfterFunc(e.ctx, func() { inProcessByEnv.Delete(e) })
	}
	return s.(*inProcessSet)
}

// runInProcess starts a component that runs as a goroutine and records it,
// so it can be suspended, resumed or killed, and Health names it when it
// stops. run must return when its context ends.
func (e *Env) runInProcess(name string, run func(context.Context) error) {
	set := e.inProcessSet()
	c := &inProcess{name: name, run: run}
	set.mu.Lock()
	defer set.mu.Unlock()
	set.m[name] = c
	e.startInProcessLocked(set, c)
}

// startInProcessLocked runs c under a context of its own, ended by Stop
// too; set.mu is held.
func (e *Env) startInProcessLocked(set *inProcessSet, c *inProcess) {
	ctx, cancel := context.WithCancel(e.ctx)
	c.cancel, c.state, c.reason = cancel, "", ""
	e.wg.Go(func() {
		err := c.run(ctx)
		if ctx.Err() != nil {
			return // stopped on purpose: Stop, Suspend or Kill
		}
		set.mu.Lock()
		defer set.mu.Unlock()
		c.state = stateExited
		if err == nil {
			c.reason = "it returned although nothing stopped it"
		} else {
			c.reason = "it stopped: " + err.Error()
		}
	})
}

// inProcessComponent returns the named in-process component, if any.
func (e *Env) inProcessComponent(name string) (*inProcessSet, *inProcess) {
	set := e.inProcessSet()
	set.mu.Lock()
	defer set.mu.Unlock()
	return set, set.m[name]
}

// component finds a process by tenant and component ("" and "etcd" for the
// shared etcd).
func (e *Env) component(tenant, component string) (*process, error) {
	name := componentName(tenant, component)
	e.mu.Lock()
	var names []string
	for _, p := range e.procs {
		if p.name == name {
			e.mu.Unlock()
			return p, nil
		}
		names = append(names, p.name)
	}
	e.mu.Unlock()
	for n := range e.inProcessStates() {
		names = append(names, n)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("testenv: no component %s; the environment has %s", name, strings.Join(names, ", "))
}

func componentName(tenant, component string) string {
	if tenant == "" {
		return component
	}
	return tenant + "/" + component
}

// Kill ends a component at once, as SIGKILL does, without the environment
// taking note that it stopped it: Health and the watch then report it as a
// component that died. tenant is "" for the shared etcd. A process gets
// SIGKILL (its process group) and Kill returns once it has been reaped; an
// in-process component (the bind finalizer) has its work cancelled for good.
func (e *Env) Kill(tenant, component string) error {
	name := componentName(tenant, component)
	if set, c := e.inProcessComponent(name); c != nil {
		set.mu.Lock()
		defer set.mu.Unlock()
		c.cancel()
		c.state, c.reason = stateKilled, "killed: its work was cancelled"
		return nil
	}
	p, err := e.component(tenant, component)
	if err != nil {
		return err
	}
	if p.exited() { // never signal a reaped PID: it may be reused
		return fmt.Errorf("testenv: kill %s: it is not running (%s)", p.name, p.exitReason())
	}
	killGroup(p.pid(), syscall.SIGKILL)
	select {
	case <-p.done:
		return nil
	case <-time.After(signalWait):
		return fmt.Errorf("testenv: kill %s (pid %d): still running %s after SIGKILL", p.name, p.pid(), signalWait)
	}
}

// Suspend stops a component without ending it, as SIGSTOP does: a process
// gets SIGSTOP (its process group) and Suspend returns once the kernel
// shows it stopped; an in-process component's work is cancelled until
// Resume starts it again (it then re-lists, as a process would after a
// long pause).
func (e *Env) Suspend(tenant, component string) error {
	if set, c := e.inProcessComponent(componentName(tenant, component)); c != nil {
		return e.pauseInProcess(set, c, true)
	}
	return e.signalState(tenant, component, syscall.SIGSTOP, true)
}

// Resume undoes Suspend: SIGCONT for a process (returning once it runs
// again), a fresh start of an in-process component's work.
func (e *Env) Resume(tenant, component string) error {
	if set, c := e.inProcessComponent(componentName(tenant, component)); c != nil {
		return e.pauseInProcess(set, c, false)
	}
	return e.signalState(tenant, component, syscall.SIGCONT, false)
}

// signalState sends SIGSTOP or SIGCONT and waits until /proc shows the
// process stopped (want) or running again. Calls for one process take
// turns: the fault test resumes etcd as soon as the suite's health watch
// has seen it stopped, and that SIGCONT, sent while Suspend was between
// two looks at /proc, left Suspend waiting for a stop already undone
// (TestSuspendSeesItsStopThoughAWatcherResumes).
func (e *Env) signalState(tenant, component string, sig syscall.Signal, want bool) error {
	p, err := e.component(tenant, component)
	if err != nil {
		return err
	}
	p.signalMu.Lock()
	defer p.signalMu.Unlock()
	if p.exited() {
		return fmt.Errorf("testenv: %s %s: it is not running (%s)", sigName(sig), p.name, p.exitReason())
	}
	killGroup(p.pid(), sig)
	deadline := time.Now().Add(signalWait)
	for suspended(p.pid()) != want {
		if p.exited() {
			return fmt.Errorf("testenv: %s %s: it exited (%s)", sigName(sig), p.name, p.exitReason())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("testenv: %s %s (pid %d): /proc does not show it %s %s later (%s)", sigName(sig), p.name, p.pid(),
				map[bool]string{true: "stopped", false: "running"}[want], signalWait, threadStates(p.pid()))
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

func sigName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGSTOP:
		return "SIGSTOP"
	case syscall.SIGCONT:
		return "SIGCONT"
	}
	return sig.String()
}

func (e *Env) pauseInProcess(set *inProcessSet, c *inProcess, pause bool) error {
	set.mu.Lock()
	defer set.mu.Unlock()
	switch {
	case c.state == stateKilled || c.state == stateExited:
		return fmt.Errorf("testenv: %s is not running (%s)", c.name, c.reason)
	case pause && c.state == "":
		c.cancel()
		c.state, c.reason = stateSuspended, "its work is paused until Resume"
	case !pause && c.state == stateSuspended:
		if e.ctx.Err() != nil {
			return fmt.Errorf("testenv: resume %s: the environment is stopping", c.name)
		}
		e.startInProcessLocked(set, c)
	}
	return nil
}

// inProcessStates returns each in-process component's state and reason.
func (e *Env) inProcessStates() map[string][2]string {
	set := e.inProcessSet()
	set.mu.Lock()
	defer set.mu.Unlock()
	out := make(map[string][2]string, len(set.m))
	for name, c := range set.m {
		out[name] = [2]string{c.state, c.reason}
	}
	return out
}

// inProcessProblem says why an in-process component is not running.
func inProcessProblem(name, state, reason string) string {
	if state == stateSuspended {
		return fmt.Sprintf("%s is suspended (%s)", name, reason)
	}
	return fmt.Sprintf("%s is not running (%s)", name, reason)
}

// TenantHealth is Health for what serves one tenant: its own components
// and the shared etcd. It is what a suite run against this environment
// consults (suite.Config.Health) to fail a case of a broken tenant at
// once, naming the component, while the other tenants' cases go on.
func (e *Env) TenantHealth(tenant string) error {
	return e.health(func(name string) bool { return name == "etcd" || strings.HasPrefix(name, tenant+"/") })
}

// health names every matching component that exited on its own or is
// suspended or killed, processes first in start order.
func (e *Env) health(match func(string) bool) error {
	e.mu.Lock()
	procs := append([]*process(nil), e.procs...)
	e.mu.Unlock()
	var errs []error
	for _, p := range procs {
		if !match(p.name) {
			continue
		}
		switch componentState(p) {
		case "exited":
			errs = append(errs, fmt.Errorf("%s exited on its own (%s); log %s", p.name, p.exitReason(), p.logPath))
		case "suspended":
			errs = append(errs, fmt.Errorf("%s (pid %d) is suspended (SIGSTOP)", p.name, p.pid()))
		}
	}
	states := e.inProcessStates()
	names := make([]string, 0, len(states))
	for name := range states {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if st := states[name]; st[0] != "" && match(name) {
			errs = append(errs, errors.New(inProcessProblem(name, st[0], st[1])))
		}
	}
	return errors.Join(errs...)
}
