package run

import (
	"fmt"
	"strings"
)

// made is what one rehearsal has made so far: what cleanup must undo.
type made struct {
	// LibModules: the rehearsal created the empty /lib/modules.
	LibModules bool
	// Daemon: the private daemon (and its namespace) was started.
	Daemon bool
	// Lab: labctl up was started (containers may exist on the daemon).
	Lab bool
	// State: labctl's state directory was created by this rehearsal;
	// StateParent: its parent too (the work directory).
	State, StateParent bool
	// Limits are the kernel limits the rehearsal raised.
	Limits []raised
}

// action is one cleanup step.
type action string

const (
	actLabDown          action = "labctl down"
	actStopDaemon       action = "stop the private daemon"
	actRemoveState      action = "remove labctl's state directory"
	actRemoveLibModules action = "remove /lib/modules"
	actRestoreLimits    action = "restore the kernel limits"
)

// cleanupPlan is what is undone, in order: the lab is taken down by labctl
// itself (as a user's would be, and so that `labctl down` is rehearsed
// too) while the daemon still runs; then the daemon stops (which removes
// whatever labctl down left: containers, networks, volumes, the data root);
// labctl's state directory goes only once its diagnostics were copied into
// the reports; /lib/modules and the kernel limits last, when no node runs
// any more. With
// keep nothing is undone.
func cleanupPlan(m made, keep bool) []action {
	if keep {
		return nil
	}
	var out []action
	if m.Lab && m.Daemon {
		out = append(out, actLabDown)
	}
	if m.Daemon {
		out = append(out, actStopDaemon)
	}
	if m.State {
		out = append(out, actRemoveState)
	}
	if m.LibModules {
		out = append(out, actRemoveLibModules)
	}
	if len(m.Limits) > 0 {
		out = append(out, actRestoreLimits)
	}
	return out
}

// keptCommands are the commands that remove what a kept rehearsal left,
// in the order CleanupPlan would run them. The daemon, the kernel limits
// and /lib/modules are in the record of the daemon directory: one `daemon
// down` undoes them all.
func keptCommands(m made, p Paths, libModules string) []string {
	var out, host []string
	if m.Daemon {
		host = append(host, "the private daemon and namespace "+p.Netns)
	}
	for _, r := range m.Limits {
		host = append(host, fmt.Sprintf("%s raised from %d", r.Path, r.Old))
	}
	if m.LibModules {
		host = append(host, "the empty "+libModules+" made for kind's mount")
	}
	for _, a := range cleanupPlan(m, false) {
		switch a {
		case actLabDown:
			d := down(p)
			out = append(out, "the lab: "+d.String())
		case actRemoveState:
			out = append(out, "labctl's state directory: rm -r "+p.State)
		}
	}
	if len(host) > 0 {
		out = append(out, fmt.Sprintf("%s (recorded in %s): rehearse daemon down --dir %s",
			strings.Join(host, ", "), p.Daemon.RecordFile(), p.Daemon.Dir))
	}
	return out
}

// describe is a cleanup action's line in the report.
func describe(a action, err error) string {
	if err != nil {
		return fmt.Sprintf("%s: FAILED: %s", a, strings.ReplaceAll(err.Error(), "\n", " "))
	}
	return string(a) + ": done"
}
