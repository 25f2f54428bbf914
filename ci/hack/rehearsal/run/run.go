package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// Options are one rehearsal's inputs.
type Options struct {
	Paths
	// Lab is the lab labctl builds (the seed lab by default): the charts
	// the bundle must hold are its pins.
	Lab *lab.Lab
	// Charts is a directory of chart archives to put into the bundle
	// first (AttachCharts); empty when the bundle holds them already.
	Charts string
	// Keep leaves the lab, the daemon and the state up (and a failed
	// stage's lab for inspection).
	Keep bool
	// LibModulesDir is LibModules and Limits InotifyLimits unless a test
	// says otherwise.
	LibModulesDir string
	Limits        []Sysctl
	Log           *slog.Logger
	// Fault is made once on the lab while the suite runs (none when
	// empty); FaultKube is argv of `rehearse run fault-kube`, which the
	// fault's Kubernetes commands run in the namespace (faultkube).
	Fault     Fault
	FaultKube []string
	// Interrupt, when set, interrupts the first labctl up (interruptedUp).
	Interrupt *Interrupt
	// Baseline, when set, is another run's figures the report compares
	// this run's with (costSection).
	Baseline *Baseline
}

// sampleEvery is how often disk and memory are measured while the lab
// runs: the peaks are the largest samples (the memory peak is also kept by
// the kernel, so its last sample is exact).
const sampleEvery = 30 * time.Second

// runState is one run's progress: what it made, what it measured.
type runState struct {
	o    Options
	d    Deps
	log  *slog.Logger
	r    *Report
	made made
	// reports is the reports directory, every file written through it;
	// changes is the claim on the daemon directory, whose record lists
	// what the run changed on the host before it is changed.
	reports *os.Root
	changes *hostdaemon.Changes
	// fault is Options.Fault on this lab (nil without one); onLine, when
	// set, is handed each line of the labctl commands.
	fault  *faultPlan
	onLine func(step, string)

	mu       sync.Mutex
	hb       *heartbeat
	peak     sample
	samples  int
	sampled  time.Time
	stopTick func()
	sampling bool
	inflight sync.WaitGroup
}

// Run rehearses the lab once and writes rehearsal.md into the reports
// directory, whatever happens: the report names the step that failed and
// keeps its last lines; the lab's diagnostics and the daemon's logs are
// copied beside it before cleanup removes the rest.
func Run(ctx context.Context, o Options, d Deps) (Report, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.LibModulesDir == "" {
		o.LibModulesDir = libModules
	}
	if o.Lab == nil {
		o.Lab = lab.Default()
	}
	if o.Limits == nil {
		o.Limits = InotifyLimits
	}
	r := &Report{Date: d.now(), Bundle: o.Bundle, Adaptations: rehearsal.Adaptations(), Baseline: o.Baseline}
	rh := &runState{o: o, d: d, log: o.Log, r: r}
	rh.startSampling()
	err := rh.run(ctx)
	if err != nil {
		r.Failure = err.Error()
	}
	rh.exportEvidence(err != nil)
	if rh.made.Daemon {
		// The last measurement, while the lab and the daemon still run:
		// cleanup removes the cgroup that holds the kernel's peak.
		s := d.Probe.sample(o.Paths)
		r.Peak.DaemonRSS = d.Probe.daemonPeakRSS(o.Paths)
		rh.mu.Lock()
		rh.peak, rh.samples = rh.peak.max(s), rh.samples+1
		rh.mu.Unlock()
	}
	rh.mu.Lock()
	r.Peak.sample, r.Peak.Samples = rh.peak, rh.samples
	rh.mu.Unlock()
	cerr := rh.cleanup(context.WithoutCancel(ctx))
	rh.stopTick()
	r.Figures = figuresOf(o.Lab, r.Stages, r.Peak.sample)
	if rh.reports != nil {
		if werr := writeIn(rh.reports, ReportFile, strings.NewReader(r.markdown())); werr != nil {
			cerr = errors.Join(cerr, fmt.Errorf("write the rehearsal report: %w", werr))
		}
		if fj, jerr := json.MarshalIndent(r.Figures, "", "  "); jerr != nil {
			cerr = errors.Join(cerr, jerr)
		} else if werr := writeIn(rh.reports, FiguresFile, bytes.NewReader(append(fj, '\n'))); werr != nil {
			cerr = errors.Join(cerr, fmt.Errorf("write the run's figures: %w", werr))
		}
		rh.reports.Close()
	}
	return *r, errors.Join(err, cerr)
}

func (rh *runState) run(ctx context.Context) error {
	reports, err := openDir(rh.o.Paths.Reports)
	if err != nil {
		return fmt.Errorf("reports directory: %w", err)
	}
	rh.reports = reports
	if err := rh.prepareFault(); err != nil {
		return err
	}
	idx, err := rh.bundle()
	if err != nil {
		return err
	}
	if err := rh.prepareHost(ctx); err != nil {
		return err
	}
	if err := rh.startDaemon(ctx); err != nil {
		return err
	}
	rh.made.Lab = true
	if in := rh.o.Interrupt; in != nil {
		if err := rh.interruptedUp(ctx, *in); err != nil {
			return err
		}
	}
	if err := rh.labUp(ctx, idx); err != nil {
		return err
	}
	return rh.runSuite(ctx)
}

// prepareFault plans Options.Fault on this lab, when one is asked for.
func (rh *runState) prepareFault() error {
	if rh.o.Fault != "" {
		// Before anything starts: a fault that cannot be made on this lab
		// is said at once, not after the lab is up.
		pl, err := planFault(rh.o.Fault, rh.o.Lab, rh.o.Paths, rh.o.FaultKube)
		if err != nil {
			return err
		}
		rh.fault = &pl
		rh.r.Fault = &FaultRecord{Name: pl.Fault, Tenant: pl.Tenant, What: pl.what()}
	}
	return nil
}

// prepareHost claims the daemon directory and makes what the lab needs on
// the host (labctl's state directory claimed, /lib/modules, the kernel
// limits), each recorded in made for cleanup.
func (rh *runState) prepareHost(ctx context.Context) error {
	p := rh.o.Paths
	var err error
	// Before anything on the host changes: the record of what this run
	// changes (and the undoing of what a killed one left, its lab state
	// included).
	if rh.changes, err = hostdaemon.Claim(ctx, p.Daemon.Dir, "rehearse run", rh.log); err != nil {
		return err
	}
	if err := checkStateDir(p.State); err != nil {
		return err
	}
	// labctl up makes the directory (and claims it as its own); the
	// rehearsal removes it afterwards, once the evidence is copied, and
	// the next rehearsal if this one is killed.
	if err := rh.changes.AddLabState(p.State); err != nil {
		return err
	}
	rh.made.State = true
	if _, err := os.Stat(filepath.Dir(p.State)); os.IsNotExist(err) {
		rh.made.StateParent = true
	}
	if rh.made.LibModules, err = ensureDir(rh.o.LibModulesDir, rh.changes); err != nil {
		return err
	}
	rh.made.Limits, err = RaiseLimits(rh.o.Limits, rh.changes)
	for _, r := range rh.made.Limits {
		rh.log.Info("raised a kernel limit for the run (restored afterwards)", "limit", r.Path, "from", r.Old, "to", r.New)
	}
	return err
}

// startDaemon starts the private daemon and reads the versions of what
// runs the lab.
func (rh *runState) startDaemon(ctx context.Context) error {
	rh.watch("starting the private daemon")
	_, err := rh.d.Daemon.start(ctx)
	rh.watch("")
	if err != nil {
		return fmt.Errorf("start the private daemon: %w", err)
	}
	rh.made.Daemon = true
	rh.r.Host = rh.d.Probe.host(ctx, rh.o.Paths)
	rh.r.Labctl = rh.d.Probe.labctlVersion(ctx, rh.o.Paths.Labctl)
	return nil
}

// labUp runs labctl up and records where the images came from and
// labctl's stages.
func (rh *runState) labUp(ctx context.Context, idx images.Index) error {
	p := rh.o.Paths
	up, err := rh.step(ctx, up(p, rh.o.Keep))
	// The bundle was loaded first thing: say where each image came from,
	// also when a stage failed later.
	rh.r.Images = imageSources(idx.Images, rh.d.labels(ctx, p))
	rh.r.Stages, _ = state.Dir(p.State).ReadStages()
	rh.r.Timeline = upTimeline(logFile(p.Reports, stepUp), rh.r.Stages)
	if err != nil {
		return err
	}
	if up.ExitCode != 0 {
		return fmt.Errorf("labctl up failed (exit %d): %s (its log: %s; the lab's diagnostics: %s)",
			up.ExitCode, lastLines(up.Tail, 3), up.Log, filepath.Join(p.Reports, diagnosticsDir))
	}
	return nil
}

// runSuite runs labctl test, with the fault made meanwhile when there is
// one, and says whether the suite passed.
func (rh *runState) runSuite(ctx context.Context) error {
	p := rh.o.Paths
	var fr *faultRun
	if rh.fault != nil {
		fr = rh.startFault(ctx, *rh.fault)
	}
	test, err := rh.step(ctx, test(p))
	if fr != nil {
		// Its recovery is watched to the end before labctl down.
		fr.finish()
	}
	rh.r.Suite, _ = ReadSuite(p.Reports)
	if err != nil {
		return err
	}
	if fr != nil {
		return faultSuiteError(test, rh.r.Suite, *rh.fault, rh.r.Fault)
	}
	return suiteError(test, rh.r.Suite)
}

// checkStateDir fails unless labctl's state directory is missing or an
// empty directory: labctl would resume a lab it finds there, and a file or
// link at that path is not the rehearsal's to remove.
func checkStateDir(dir string) error {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("labctl's state directory %s: %w", dir, err)
	case !fi.IsDir():
		return fmt.Errorf("labctl's state directory %s is not a directory (%v): choose another --work-dir, or move it away",
			dir, fi.Mode().Type())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("labctl's state directory %s: %w", dir, err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("labctl's state directory %s is not empty (an earlier rehearsal kept with --keep?): "+
			"labctl would resume that lab instead of building one; "+
			"remove it first (`labctl down --state-dir %s` in the namespace, then rm -r)", dir, dir)
	}
	return nil
}

// bundle checks the bundle and puts the charts into it.
func (rh *runState) bundle() (images.Index, error) {
	p := rh.o.Paths
	want := images.PinnedCharts(rh.o.Lab)
	idx, err := images.ReadIndex(p.Bundle)
	if err != nil {
		return idx, err
	}
	if len(idx.Images) == 0 {
		return idx, fmt.Errorf("the bundle %s holds no image: build them first (`rehearse images --bundle %s`)", p.Bundle, p.Bundle)
	}
	if rh.o.Charts != "" {
		if idx, err = attachCharts(p.Bundle, rh.o.Charts, want); err != nil {
			return idx, err
		}
	}
	if err := checkBundleCharts(p.Bundle, idx, want); err != nil {
		return idx, err
	}
	rh.r.Charts = idx.Charts
	rh.r.Peak.BundleBytes, _ = diskUsage(p.Bundle)
	return idx, nil
}

// suiteError is nil when the suite ran and passed; otherwise it names the
// failed cases, or says why there are no results.
func suiteError(test stepResult, s *Suite) error {
	switch {
	case s == nil:
		return fmt.Errorf("labctl test wrote no results.json (exit %d): %s (its log: %s)", test.ExitCode, lastLines(test.Tail, 3), test.Log)
	case s.Failed > 0:
		return fmt.Errorf("the suite failed %d of %d cases: %s", s.Failed, s.Passed+s.Failed+s.Skipped, strings.Join(s.FailedCases, "; "))
	case test.ExitCode != 0:
		return fmt.Errorf("labctl test exited %d with no failed case: %s (its log: %s)", test.ExitCode, lastLines(test.Tail, 3), test.Log)
	}
	return nil
}

func lastLines(tail []string, n int) string {
	if len(tail) > n {
		tail = tail[len(tail)-n:]
	}
	return strings.Join(tail, " / ")
}
