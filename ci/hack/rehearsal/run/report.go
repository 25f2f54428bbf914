package run

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal"
	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// ReportFile is the rehearsal's report, beside the suite's reports.
const ReportFile = "rehearsal.md"

// Report is everything rehearsal.md says about one run. Every figure in it
// is measured or read from what ran; a figure that could not be taken says
// "not measured".
type Report struct {
	Date time.Time
	// Labctl is `labctl version` of the binary that ran the lab,
	// verbatim: its commit and every pinned version.
	Labctl string
	Host   hostInfo
	Bundle string
	Images []imageSource
	Charts []images.ChartEntry
	// Adaptations are rehearsal.Adaptations() plus those of this run.
	Adaptations []rehearsal.Adaptation
	Steps       []stepResult
	// Stages are labctl up's own records (its state directory's
	// stages.json).
	Stages []state.StageRecord
	// Timeline is the steps of labctl up, each stage's critical path first
	// (timeline.Markdown, from its --verbose log); "" when not read.
	Timeline string
	Suite    *Suite
	// Fault is the fault the run made (--fault), nil without one.
	Fault *FaultRecord
	// Interrupt is the interruption of the first labctl up
	// (--interrupt-up), nil without one.
	Interrupt *InterruptRecord
	Peak      peak
	// Figures are this run's, as figures.json keeps them; Baseline
	// another run's, which the report compares them with (--baseline).
	Figures  Figures
	Baseline *Baseline
	// Failure is the error that ended the rehearsal early, if any.
	Failure string
	// Cleanup says what was removed, or what was kept and how to remove it.
	Cleanup []string
}

// hostInfo are the versions of what runs the lab on this machine.
type hostInfo struct {
	Kernel, Cgroup, Docker, Containerd, Runc, Helm string
}

// imageSource is one image of the bundle and where it came from.
type imageSource struct {
	Ref, ID string
	// Source is upstream's name of the content when the rehearsal's image
	// build made the image from source (its label); empty otherwise.
	Source string
	// Built says the image carries the rehearsal build's cache key label.
	Built bool
	// Err says why its labels could not be read.
	Err string
}

// stepResult is one labctl command as it ran.
type stepResult struct {
	Step     step
	Command  string
	Wall     time.Duration
	MaxRSS   int64 // bytes, the process's own peak (getrusage)
	ExitCode int
	// Tail are its last lines, for a failure.
	Tail []string
	Log  string
}

// Suite is what results.json says of the suite's run.
type Suite struct {
	Duration                time.Duration
	Passed, Failed, Skipped int
	// FailedCases are "TC-nn: message".
	FailedCases []string
}

// peak are the run's peaks.
type peak struct {
	sample
	// Samples is how many disk samples the disk peak is the largest of.
	Samples int
	// DaemonRSS is dockerd's and containerd's VmHWM, by name.
	DaemonRSS map[string]int64
	// BundleBytes is the bundle's size on disk (read, not made).
	BundleBytes int64
}

// markdown renders the report.
func (r Report) markdown() string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("# Rehearsal of the real lab, %s\n\n", r.Date.UTC().Format("2006-01-02 15:04 MST"))
	if r.Failure != "" {
		w("**The rehearsal did not finish:** %s\n\n", r.Failure)
	}
	w("## labctl\n\n```\n%s\n```\n\n", strings.TrimSpace(orNone(r.Labctl)))
	r.hostSection(w)
	r.imagesSection(w)
	w("## Charts\n\n")
	for _, c := range r.Charts {
		w("- %s %s (%s)\n", c.Name, c.Version, c.File)
	}
	w("\n## Host adaptations\n\n")
	for i, a := range r.Adaptations {
		w("%d. **%s** — %s\n   - why: %s\n   - evidence: %s\n", i+1, a.Name, a.What, a.Reason, a.Evidence)
	}
	w("\n## Steps\n\n| step | wall time | peak RSS | exit | command |\n|---|---|---|---|---|\n")
	for _, s := range r.Steps {
		w("| %s | %s | %s | %d | `%s` |\n", s.Step, s.Wall.Round(100*time.Millisecond), human(s.MaxRSS), s.ExitCode, s.Command)
	}
	if r.Interrupt != nil {
		r.Interrupt.markdown(w)
	}
	r.stagesSection(w)
	r.suiteSection(w)
	if r.Fault != nil {
		r.Fault.markdown(w)
	}
	r.peaksSection(w)
	r.costSection(w)
	for _, s := range r.Steps {
		if len(s.Tail) > 0 && s.ExitCode != 0 {
			w("\n## Last lines of labctl %s (log %s)\n\n```\n%s\n```\n", s.Step, s.Log, strings.Join(s.Tail, "\n"))
		}
	}
	if len(r.Cleanup) > 0 {
		w("\n## Cleanup\n\n")
		for _, c := range r.Cleanup {
			w("- %s\n", c)
		}
	}
	return b.String()
}

// hostSection renders the versions of what ran the lab.
func (r Report) hostSection(w func(string, ...any)) {
	w("## Host\n\n| | |\n|---|---|\n")
	for _, kv := range [][2]string{{"kernel", r.Host.Kernel}, {"cgroup", r.Host.Cgroup}, {"private dockerd", r.Host.Docker},
		{"containerd", r.Host.Containerd}, {"runc", r.Host.Runc}, {"helm", r.Host.Helm}} {
		w("| %s | %s |\n", kv[0], orNone(kv[1]))
	}
}

// imagesSection renders the bundle's images, each with where it came
// from, and how many the rehearsal built from source.
func (r Report) imagesSection(w func(string, ...any)) {
	w("\n## Images (bundle %s)\n\n| image | ID | built from source |\n|---|---|---|\n", r.Bundle)
	built := 0
	for _, i := range r.Images {
		how := "no (as the bundle holds it)"
		switch {
		case i.Err != "":
			how = "unknown: " + i.Err
		case i.Built && i.Source != "":
			how, built = "yes: "+i.Source, built+1
		case i.Built:
			how, built = "yes", built+1
		}
		w("| %s | %s | %s |\n", i.Ref, shortID(i.ID), how)
	}
	w("\n%d of %d images were built from source by the rehearsal.\n\n", built, len(r.Images))
}

// stagesSection renders labctl up's own stage records.
func (r Report) stagesSection(w func(string, ...any)) {
	w("\n## Stages of labctl up\n\n")
	if len(r.Stages) == 0 {
		w("No stage recorded (labctl up wrote no stages.json).\n")
		return
	}
	w("| stage | status | time | message |\n|---|---|---|---|\n")
	for _, s := range r.Stages {
		w("| %s | %s | %s | %s |\n", s.Name, s.Status, s.Duration.Round(100*time.Millisecond), strings.ReplaceAll(s.Message, "\n", " "))
	}
	if r.Timeline != "" {
		w("\n### Steps of each stage (labctl up --verbose)\n\n%s", r.Timeline)
	}
}

// suiteSection renders what results.json says, or that there is none.
func (r Report) suiteSection(w func(string, ...any)) {
	w("\n## Suite\n\n")
	if r.Suite == nil {
		w("The suite did not run (no results.json).\n")
		return
	}
	w("%d passed, %d failed, %d skipped in %s (results.json).\n",
		r.Suite.Passed, r.Suite.Failed, r.Suite.Skipped, r.Suite.Duration.Round(100*time.Millisecond))
	for _, c := range r.Suite.FailedCases {
		w("- failed %s\n", c)
	}
}

// peaksSection renders the run's measured peaks, the daemons' by name.
func (r Report) peaksSection(w func(string, ...any)) {
	w("\n## Peaks (measured)\n\n")
	w("- containers' memory (the kernel's peak of the private daemon's cgroup parent, page cache included): %s\n",
		human(r.Peak.MemoryPeakBytes))
	names := make([]string, 0, len(r.Peak.DaemonRSS))
	for n := range r.Peak.DaemonRSS {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w("- %s peak RSS (VmHWM): %s\n", n, human(r.Peak.DaemonRSS[n]))
	}
	w("- disk (daemon's data root and state, labctl's state; largest of %d samples): %s\n", r.Peak.Samples, human(r.Peak.DiskBytes))
	w("- the bundle read: %s\n", human(r.Peak.BundleBytes))
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "unknown"
	}
	return s
}

func shortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		return id[:12]
	}
	if id == "" {
		return "—"
	}
	return id
}
