package testenv

import (
	"fmt"
	"time"
)

// watchInterval is how often a ready environment looks at its processes.
const watchInterval = 250 * time.Millisecond

// watch runs while the environment is up and logs one line when a component
// exits on its own or is suspended (SIGSTOP), and one when a suspended one
// runs again: a suite case that then times out against it is explained by
// the environment itself, naming the component. Components the environment
// stops on purpose (Stop, breakTunnel) are not reported.
func (e *Env) watch() {
	e.wg.Go(func() {
		t := time.NewTicker(watchInterval)
		defer t.Stop()
		seen := map[*process]string{}
		seenInProc := map[string]string{}
		for {
			select {
			case <-e.ctx.Done():
				return
			case <-t.C:
			}
			e.mu.Lock()
			procs := append([]*process(nil), e.procs...)
			e.mu.Unlock()
			for _, p := range procs {
				state := componentState(p)
				if state == seen[p] {
					continue
				}
				switch state {
				case "exited":
					e.log.Error(fmt.Sprintf("%s exited on its own: %v", p.name, p.exitReason()), "log", p.logPath)
				case "suspended":
					e.log.Error(fmt.Sprintf("%s is suspended (SIGSTOP): it answers nothing until it gets SIGCONT", p.name), "pid", p.pid())
				case "":
					e.log.Info(fmt.Sprintf("%s runs again", p.name), "pid", p.pid())
				}
				seen[p] = state
			}
			e.logInProcessChanges(seenInProc)
		}
	})
}

// logInProcessChanges logs, like the processes' lines, when a component
// running in this process stops (Kill, Suspend, an error) or runs again.
func (e *Env) logInProcessChanges(seen map[string]string) {
	for name, st := range e.inProcessStates() {
		if st[0] == seen[name] {
			continue
		}
		if st[0] == "" {
			e.log.Info(fmt.Sprintf("%s runs again", name))
		} else {
			e.log.Error(inProcessProblem(name, st[0], st[1]))
		}
		seen[name] = st[0]
	}
}

// componentState is "exited" for a process that ended without being
// stopped, "suspended" for one stopped by a signal, else "".
func componentState(p *process) string {
	switch {
	case p.exitError() != nil:
		return "exited"
	case !p.exited() && suspended(p.pid()):
		return "suspended"
	}
	return ""
}

// exitReason is how the process ended ("exit status 1", "signal: killed").
func (p *process) exitReason() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.waitErr == nil {
		return "exit status 0"
	}
	return p.waitErr.Error()
}

// Health names every component that exited on its own or is suspended, with
// its log, or returns nil: what a suite run that fails can quote to say the
// environment, not the behaviour under test, broke. In-process components
// broken by Kill or Suspend are named too.
func (e *Env) Health() error { return e.health(func(string) bool { return true }) }
