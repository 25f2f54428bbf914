package run

import (
	"path/filepath"
	"strings"
	"syscall"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
)

// step names one labctl command of the rehearsal; it is also the name of
// its log in the reports directory (labctl-STEP.log).
type step string

const (
	stepUp   step = "up"
	stepTest step = "test"
	stepDown step = "down"
)

// command is one process the rehearsal runs: argv and the environment it
// is given on top of the rehearsal's own (Env replaces a variable of the
// same name).
type command struct {
	Step step
	Args []string
	Env  []string
	// Stop, when set, is the signal its whole process group gets when its
	// context ends (else labctl alone gets SIGINT, its own interruption).
	Stop syscall.Signal
}

// String is the command as a maintainer would type it, for logs and the
// report.
func (c command) String() string {
	return strings.Join(append(append([]string(nil), c.Env...), c.Args...), " ")
}

// Paths are the files one rehearsal reads and writes.
type Paths struct {
	// Labctl is the labctl binary that runs the lab (the rehearsal's own
	// by default: the same binary, the same stages and code a user runs).
	Labctl string
	// Helm is the helm binary labctl installs the charts with (LABCTL_HELM).
	Helm string
	// Bundle is the image bundle (`labctl images save` layout, charts in
	// Bundle/charts).
	Bundle string
	// LabFile is the lab file; empty means labctl's embedded seed lab.
	LabFile string
	// State is labctl's state directory (kubeconfigs, stage records,
	// diagnostics).
	State string
	// Reports is where `labctl test` writes its reports and the rehearsal
	// writes rehearsal.md and the logs.
	Reports string
	// Netns is the daemon's network namespace; Daemon its layout.
	Netns  string
	Daemon hostdaemon.Layout
}

// inNetns is argv run inside the daemon's network namespace. nsenter
// --net, not `ip netns exec`: the latter also remounts /sys (see
// hostdaemon's package doc); labctl needs only the namespace's network —
// the kind API server on its loopback and the tenants' NodePorts on its
// bridge.
func inNetns(netns string, argv ...string) []string {
	return append([]string{"nsenter", "--net=" + hostdaemon.NetnsPath(netns), "--"}, argv...)
}

// env is what every labctl command of the rehearsal is given: the private
// daemon and the helm binary. Nothing else changes from a user's run.
func (p Paths) env() []string {
	return []string{"DOCKER_HOST=" + p.Daemon.DockerHost(), "LABCTL_HELM=" + p.Helm}
}

func (p Paths) lab(args []string) []string {
	if p.LabFile != "" {
		args = append(args, "--file", p.LabFile)
	}
	return args
}

// up is `labctl up --images BUNDLE --state-dir STATE` in the namespace.
// keep is passed on: a failed stage then leaves the lab up for inspection
// (labctl's --keep); without it labctl tears the failed lab down itself,
// after writing its diagnostics.
func up(p Paths, keep bool) command {
	args := p.lab([]string{p.Labctl, "up", "--images", p.Bundle, "--state-dir", p.State, "--verbose"})
	if keep {
		args = append(args, "--keep")
	}
	return command{Step: stepUp, Args: inNetns(p.Netns, args...), Env: p.env()}
}

// test is `labctl test --state-dir STATE --report-dir REPORTS` in the
// namespace: the lab file and the backend come from the state directory
// `labctl up` wrote.
func test(p Paths) command {
	args := []string{p.Labctl, "test", "--state-dir", p.State, "--report-dir", p.Reports, "--verbose"}
	return command{Step: stepTest, Args: inNetns(p.Netns, args...), Env: p.env()}
}

// down is `labctl down --state-dir STATE` in the namespace.
func down(p Paths) command {
	args := []string{p.Labctl, "down", "--state-dir", p.State}
	return command{Step: stepDown, Args: inNetns(p.Netns, args...), Env: p.env()}
}

// logFile is where the output of a step is kept, in the reports directory.
func logFile(reports string, s step) string {
	return filepath.Join(reports, "labctl-"+string(s)+".log")
}

// mergeEnv is base with every variable of over replacing the one of the
// same name (a user's DOCKER_HOST must not reach the machine's Docker).
func mergeEnv(base, over []string) []string {
	name := func(kv string) string { n, _, _ := strings.Cut(kv, "="); return n }
	drop := map[string]bool{}
	for _, kv := range over {
		drop[name(kv)] = true
	}
	var out []string
	for _, kv := range base {
		if !drop[name(kv)] {
			out = append(out, kv)
		}
	}
	return append(out, over...)
}
