package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
	rehrun "github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/run"
	"github.com/gpu-lab/gpu-lab/ci/internal/helm"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// runFlags are `rehearse run`'s flags.
type runFlags struct {
	bundle, charts, reports, workDir, file string
	labctl, helm                           string
	daemonDir, netns, wrapper              string
	keep                                   bool
	timeout                                time.Duration
	// fault is --fault: one component fault made while the suite runs.
	fault string
	// baseline is --baseline: an earlier run's reports directory.
	baseline string
	// interruptUp is --interrupt-up: STAGE:SIGNAL[+DELAY].
	interruptUp string
	// repeat is --repeat: how many rehearsals in a row (a soak).
	repeat int
}

// labctlPackage is the command `rehearse run` builds and runs the lab with.
const labctlPackage = "github.com/gpu-lab/gpu-lab/ci/cmd/labctl"

func newRunCommand() *cobra.Command {
	var f runFlags
	c := &cobra.Command{
		Use:   "run",
		Short: "Run the real lab end to end on this machine: labctl up --images and labctl test on a private Docker daemon",
		Long:  runLongHelp(),
		Example: `  go build -o bin/rehearse ./ci/hack/rehearse
  sudo bin/rehearse run --bundle ~/.cache/gpu-lab/rehearsal/bundle --reports ./rehearsal-reports`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRehearsal(cmd.Context(), streams{out: cmd.OutOrStdout(), errOut: cmd.ErrOrStderr()}, &f)
		},
	}
	f.bind(c.Flags())
	c.AddCommand(newFaultKubeCommand())
	return c
}

// runLongHelp is `rehearse run --help`'s text. It is a function, not a
// constant, because the list of faults comes from the run package.
func runLongHelp() string {
	return `Builds labctl from this checkout (CGO_ENABLED=0) into
<cache>/bin/labctl, unless --labctl names a built one. Starts the private Docker daemon in its own
network namespace, then runs that labctl — the same stages and code a user runs — inside that namespace (nsenter --net; DOCKER_HOST is
the private daemon's socket): labctl up --images BUNDLE, then labctl test. The suite's reports,
each command's log, labctl up's stage records and diagnostics, and rehearsal.md (date, commit,
versions, which images were built from source, every host adaptation, each stage's time, the
suite's time, measured peak memory and disk) go to --reports. Then labctl down, the daemon
stops and everything the rehearsal made is removed, unless --keep.

--fault NAME makes one component fault on the lab's first tenant with a worker while the suite
runs (issue 43; never by default): when the first case of that tenant starts (or 30 s after
labctl test began), once. Then it watches the component come back for up to 5 min and writes
what it did, when, the recovery time and how the suite's failed cases name it into rehearsal.md
(the commands' output: fault.log). With a fault a failed case fails the rehearsal only when its
message names nothing of the fault. Faults:
` + rehrun.FaultHelp() + `
--interrupt-up STAGE:SIGNAL[+DELAY] sends SIGNAL (KILL, INT or TERM) to the first labctl up
DELAY after it starts STAGE (issue 43; never by default), then runs labctl up again on the same
state directory, the suite and labctl down as always, and writes into rehearsal.md when the signal
went, how the first up ended and what the private daemon held after it. The run fails when up
ended before the signal.

--repeat N runs the whole rehearsal N times in a row from the one bundle (a soak, issue 43): run
K's reports go to --reports/run-K, and --reports/soak.md has a row per run (result; up, suite and
down walls; peaks), rewritten after each run. A failed run does not stop the soak; the soak fails
naming each failed run. Not with --keep, --fault or --interrupt-up.

Every run writes figures.json beside rehearsal.md (the lab's tenants, workers and cards; up as the
sum of labctl up's stages; the containers' memory peak; disk). --baseline DIR, the --reports of an
earlier run, adds to rehearsal.md the cost of this run's lab against that one's: each figure, what
it added, that per tenant added and up's ratio (issue 42: three tenants ≤ 1.3× the seed lab).

The bundle is the layout labctl images save writes (rehearse images builds it); the
charts come from the bundle or from --charts (HAMi, Kamaji, cert-manager archives at the
pinned versions; rehearse charts makes them). Needs root.`
}

// bind adds `rehearse run`'s flags to fs.
func (f *runFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&f.bundle, "bundle", "", "image bundle directory (default <cache>/bundle, where rehearse images writes it)")
	fs.StringVar(&f.charts, "charts", "",
		"directory of the chart archives to put into the bundle first (default <cache>/charts when it exists)")
	fs.StringVar(&f.reports, "reports", "rehearsal-reports", "directory for the suite's reports, the logs and rehearsal.md")
	fs.StringVar(&f.workDir, "work-dir", "", "directory for labctl's state (default <cache>/run)")
	fs.StringVarP(&f.file, "file", "f", "", "lab file (default: the rehearsal's lab, ci/hack/rehearsal/lab.yaml: "+
		"the seed lab with the management node on the tenants' Kubernetes version)")
	fs.StringVar(&f.labctl, "labctl", "", "a labctl binary built with CGO_ENABLED=0 to rehearse "+
		"(default: build it from this checkout into <cache>/bin/labctl)")
	fs.StringVar(&f.helm, "helm", "", "helm "+helm.Version+" binary (default $LABCTL_HELM, helm on PATH, or <cache>/bin/helm)")
	fs.StringVar(&f.daemonDir, "daemon-dir", "", "state directory of the private daemon (default ~/.cache/gpu-lab/rehearsal/daemon)")
	fs.StringVar(&f.netns, "netns", hostdaemon.DefaultNetns, "name of the daemon's network namespace")
	fs.StringVar(&f.wrapper, "wrapper", "", "a built runc-capfilter (default: build it from this checkout)")
	fs.BoolVar(&f.keep, "keep", false,
		"leave the lab, the daemon and the state up (a failed stage's lab too); the report says how to remove them")
	fs.DurationVar(&f.timeout, "timeout", 4*time.Hour, "give up after this long (labctl is interrupted and cleans up)")
	fs.StringVar(&f.fault, "fault", "", "make one component fault while the suite runs, "+
		"on the lab's first tenant with a worker (default none): one of "+strings.Join(rehrun.FaultNames(), ", "))
	fs.StringVar(&f.interruptUp, "interrupt-up", "", "interrupt the first labctl up: STAGE:SIGNAL[+DELAY], "+
		"e.g. workers:KILL+20s (default none); labctl up then runs again")
	fs.StringVar(&f.baseline, "baseline", "", "the --reports directory of an earlier run (its figures.json) whose lab "+
		"this run's is compared with: rehearsal.md then says what each tenant added (up, memory, disk)")
	fs.IntVar(&f.repeat, "repeat", 1, "run the rehearsal this many times in a row "+
		"(a soak; reports in --reports/run-K, summary in --reports/soak.md)")
}

// runRehearsal is `rehearse run` once its flags are parsed: one rehearsal,
// or --repeat of them in a row, each writing its report into --reports.
func runRehearsal(ctx context.Context, s streams, f *runFlags) error {
	// First: a misspelt fault or interruption is said before
	// anything else.
	if _, err := rehrun.ParseFault(f.fault); err != nil {
		return err
	}
	if _, err := rehrun.ParseInterrupt(f.interruptUp); err != nil {
		return err
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("rehearse run needs root: it creates a network namespace, runs dockerd, raises kernel limits " +
			"and may create /lib/modules (run it with sudo)")
	}
	o, err := f.prepare(ctx, s.errOut)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	d := rehrun.Deps{
		Exec:   rehrun.Processes{},
		Daemon: rehrun.PrivateDaemon{Dir: o.Daemon.Dir, Netns: o.Netns, Wrapper: f.wrapper, Log: o.Log},
		Probe:  rehrun.HostProbe{},
	}
	if f.repeat != 1 {
		err = rehrun.Soak(ctx, o, d, f.repeat)
		fmt.Fprintf(s.out, "soak summary: %s\n", filepath.Join(o.Reports, rehrun.SoakFile))
		return err
	}
	_, err = rehrun.Run(ctx, o, d)
	fmt.Fprintf(s.out, "rehearsal report: %s\n", filepath.Join(o.Reports, rehrun.ReportFile))
	return err
}

// prepare resolves the flags into the rehearsal's options and readies
// what they name before the clock of --timeout starts: a soak is checked,
// labctl is built unless --labctl names one, the lab file is loaded and a
// fault gets the command of its Kubernetes side.
func (f runFlags) prepare(ctx context.Context, errOut io.Writer) (rehrun.Options, error) {
	o, err := f.options(exec.LookPath)
	if err != nil {
		return rehrun.Options{}, err
	}
	if f.repeat != 1 {
		if err := rehrun.CheckSoak(o, f.repeat); err != nil {
			return rehrun.Options{}, err
		}
	}
	if f.labctl == "" {
		log := progressLog(errOut)
		if err := hostdaemon.BuildStatic(ctx, log, labctlPackage, "labctl", o.Labctl, hostdaemon.StampCommit); err != nil {
			return rehrun.Options{}, err
		}
	}
	if o.Lab, err = lab.Load(o.LabFile); err != nil {
		return rehrun.Options{}, err
	}
	o.Log = progressLog(errOut)
	if o.Fault != "" {
		if o.FaultKube, err = faultKubeArgv(); err != nil {
			return rehrun.Options{}, err
		}
	}
	return o, nil
}

// faultKubeArgv is the command of a fault's Kubernetes side: this binary,
// run in the daemon's namespace (faultkube.go), so the rehearsal needs no
// other program there.
func faultKubeArgv() ([]string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("--fault: find this binary to run %s in the namespace: %w", faultKubeName, err)
	}
	return []string{self, "run", faultKubeName}, nil
}

// options resolves the flags into the rehearsal's paths: every path
// absolute (labctl runs them in the namespace), defaults under the
// rehearsal's cache root.
func (f runFlags) options(lookPath func(string) (string, error)) (rehrun.Options, error) {
	fault, err := rehrun.ParseFault(f.fault)
	if err != nil {
		return rehrun.Options{}, err
	}
	interrupt, err := rehrun.ParseInterrupt(f.interruptUp)
	if err != nil {
		return rehrun.Options{}, err
	}
	defaultDaemon, err := hostdaemon.DefaultDir()
	if err != nil {
		return rehrun.Options{}, err
	}
	cache := filepath.Dir(defaultDaemon) // ~/.cache/gpu-lab/rehearsal
	or := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	p := rehrun.Paths{
		Labctl:  or(f.labctl, filepath.Join(cache, "bin", "labctl")),
		Bundle:  or(f.bundle, filepath.Join(cache, "bundle")),
		LabFile: f.file,
		State:   filepath.Join(or(f.workDir, filepath.Join(cache, "run")), "state"),
		Reports: f.reports,
		Netns:   f.netns,
		Daemon:  hostdaemon.Layout{Dir: or(f.daemonDir, defaultDaemon)},
	}
	if p.LabFile == "" {
		if p.LabFile, err = rehearsal.WriteLab(cache); err != nil {
			return rehrun.Options{}, err
		}
	}
	if p.Helm, err = findHelm(f.helm, cache, lookPath); err != nil {
		return rehrun.Options{}, err
	}
	for _, s := range []*string{&p.Labctl, &p.Helm, &p.Bundle, &p.LabFile, &p.State, &p.Reports, &p.Daemon.Dir} {
		if *s == "" {
			continue
		}
		if *s, err = filepath.Abs(*s); err != nil {
			return rehrun.Options{}, err
		}
	}
	charts := f.charts
	if charts == "" {
		if st, err := os.Stat(rehrun.DefaultChartsDir(cache)); err == nil && st.IsDir() {
			charts = rehrun.DefaultChartsDir(cache)
		}
	}
	var baseline *rehrun.Baseline
	if f.baseline != "" {
		if baseline, err = rehrun.ReadBaseline(f.baseline); err != nil {
			return rehrun.Options{}, err
		}
	}
	return rehrun.Options{Paths: p, Charts: charts, Keep: f.keep, Fault: fault, Interrupt: interrupt, Baseline: baseline}, nil
}

// findHelm is --helm, else $LABCTL_HELM, else helm on PATH, else the one a
// maintainer installed under the cache (GOBIN=<cache>/bin go install …).
func findHelm(flag, cache string, lookPath func(string) (string, error)) (string, error) {
	for _, c := range []string{flag, os.Getenv("LABCTL_HELM")} {
		if c != "" {
			return c, nil
		}
	}
	if p, err := lookPath("helm"); err == nil {
		return p, nil
	}
	p := filepath.Join(cache, "bin", "helm")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("no helm: pass --helm, set LABCTL_HELM or install it (GOBIN=%s %s)", filepath.Dir(p), helm.InstallHint)
}
