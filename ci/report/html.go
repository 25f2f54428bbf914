package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"strconv"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

//go:embed report.html.tmpl
var htmlSource string

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct": func(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) },
}).Parse(htmlSource))

// The HTML report carries full case text but not unbounded logs: those
// are in diagnostics/ and results.json.
const htmlDetailsMax = 64 << 10

func writeHTML(path string, run *results.Run) error {
	b, err := renderHTML(run)
	if err != nil {
		return err
	}
	return writeFile(path, b)
}

func renderHTML(run *results.Run) ([]byte, error) {
	var buf bytes.Buffer
	if err := htmlTemplate.Execute(&buf, newPage(run)); err != nil {
		return nil, fmt.Errorf("render html: %w", err)
	}
	return buf.Bytes(), nil
}

type page struct {
	Title                          string
	OK, Interrupted                bool
	Lab, Backend, Started, Wall    string
	Parallel                       int
	Passed, Failed, Skipped, Total int
	Cases                          []caseView
	// Failures are the failed cases again, shown above the card pictures
	// so a failed run opens on what failed.
	Failures []caseView
	// CoreSkipped lists the core cases the lab's hardware could not run.
	CoreSkipped []string
	Timeline    timeline
	Tenants     []tenantView
}

type caseView struct {
	ID, Title, Class, Status      string
	Start, Duration, Message, Out string
	Diagnostics                   []link
}

type link struct{ Name, Href string }

func newPage(run *results.Run) page {
	passed, failed, skipped := run.Counts()
	p := page{
		Title:       suitesName(run),
		OK:          run.OK(),
		Interrupted: run.Interrupted,
		Lab:         orDash(run.Lab),
		Backend:     orDash(run.Backend),
		Wall:        human(wallTime(run)),
		Parallel:    run.Parallel,
		Passed:      passed,
		Failed:      failed,
		Skipped:     skipped,
		Total:       len(run.Cases),
		Timeline:    newTimeline(run),
		Tenants:     newTenants(run.Tenants, run.Started),
	}
	if !run.Started.IsZero() {
		p.Started = run.Started.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	for i := range run.Cases {
		c := &run.Cases[i]
		cv := caseView{
			ID: c.ID, Title: c.Title, Class: className(c), Status: string(c.Status),
			Duration: human(time.Duration(c.Duration)), Message: c.Message,
			Out: truncate(systemOut(c), htmlDetailsMax, "results.json"),
		}
		if !c.Started.IsZero() && !run.Started.IsZero() {
			cv.Start = "+" + human(c.Started.Sub(run.Started))
		}
		for _, f := range sortedKeys(c.Diagnostics) {
			cv.Diagnostics = append(cv.Diagnostics, link{Name: f, Href: DiagnosticsDir + "/" + c.ID + "/" + f})
		}
		p.Cases = append(p.Cases, cv)
		if c.Status == results.Failed {
			p.Failures = append(p.Failures, cv)
		}
		if c.Core && c.Status == results.Skipped {
			p.CoreSkipped = append(p.CoreSkipped, c.ID)
		}
	}
	return p
}

// wallTime is the run's duration, or the span of its cases when the run
// was cut short before the suite could record it.
func wallTime(run *results.Run) time.Duration {
	if run.Duration > 0 {
		return time.Duration(run.Duration)
	}
	var end time.Duration
	for i := range run.Cases {
		c := &run.Cases[i]
		if c.Started.IsZero() || run.Started.IsZero() {
			continue
		}
		if e := c.Started.Sub(run.Started) + time.Duration(c.Duration); e > end {
			end = e
		}
	}
	return end
}
