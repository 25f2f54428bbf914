package report

import (
	"encoding/xml"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// The JUnit dialect below is the one GitLab's parser and GitHub's JUnit
// actions read (see ci/report/testdata/README.md for the schema it is
// validated against): testsuites > testsuite > testcase, time in decimal
// seconds, the reason both in failure@message (GitHub annotations) and in
// the element text (GitLab shows only the text), and diagnostics in the
// testcase's system-out (GitLab reads it at testcase level only).

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure"`
	Skipped   *junitMessage `xml:"skipped"`
	SystemOut *junitText    `xml:"system-out"`
}

// junitText is written as CDATA so multi-line output stays readable in the
// file (encoding/xml would turn every newline into &#xA; otherwise).
type junitText struct {
	Text string `xml:",cdata"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",cdata"`
}

// Limits keep junit.xml far below GitLab's 30 MB per file while leaving
// enough for events and pod YAML; the full text stays in results.json.
const (
	junitMessageMax   = 1024
	junitSystemOutMax = 64 << 10
)

func writeJUnit(path string, run *results.Run) error {
	b, err := junitXML(run)
	if err != nil {
		return err
	}
	return writeFile(path, b)
}

func junitXML(run *results.Run) ([]byte, error) {
	passed, failed, skipped := run.Counts()
	doc := junitSuites{
		Name:     suitesName(run),
		Tests:    passed + failed + skipped,
		Failures: failed,
		Time:     seconds(time.Duration(run.Duration)),
	}
	props := runProperties(run)
	index := map[string]int{}
	taken := map[string]int{}
	for i := range run.Cases {
		c := &run.Cases[i]
		cn := className(c)
		si, ok := index[cn]
		if !ok {
			si = len(doc.Suites)
			index[cn] = si
			doc.Suites = append(doc.Suites, junitSuite{Name: cn, Properties: props})
		}
		s := &doc.Suites[si]
		s.Tests++
		jc := junitTestCase(c)
		// GitLab keeps only the first of cases sharing classname+name; a
		// suite bug that reuses an ID must not hide a result.
		key := jc.ClassName + "\x00" + jc.Name
		if taken[key]++; taken[key] > 1 {
			jc.Name += " (#" + itoa(taken[key]) + ")"
		}
		s.Cases = append(s.Cases, jc)
		switch c.Status {
		case results.Failed:
			s.Failures++
		case results.Skipped:
			s.Skipped++
		}
	}
	for i := range doc.Suites {
		s := &doc.Suites[i]
		first, last := suiteSpan(run, s.Name)
		s.Time = seconds(last.Sub(first))
		if !first.IsZero() {
			s.Timestamp = first.UTC().Format(time.RFC3339)
		}
	}
	if len(doc.Suites) == 0 {
		// An interrupted run may end before any case: keep one (empty)
		// suite so readers that need a suite level still see the run.
		doc.Suites = []junitSuite{{Name: "lab", Time: seconds(0), Properties: props}}
	}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("marshal junit: %w", err)
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}

func junitTestCase(c *results.Case) junitCase {
	jc := junitCase{
		Name:      caseName(c),
		ClassName: className(c),
		Time:      seconds(time.Duration(c.Duration)),
	}
	if out := systemOut(c); out != "" {
		jc.SystemOut = &junitText{xmlSafe(truncate(out, junitSystemOutMax, "results.json"))}
	}
	msg := truncate(oneLine(c.Message), junitMessageMax, "results.json")
	switch c.Status {
	case results.Failed:
		if msg == "" {
			msg = "failed (the case gave no reason)"
		}
		jc.Failure = &junitMessage{Message: msg, Type: "AssertionFailed", Text: xmlSafe(truncate(c.Message, junitSystemOutMax, "results.json"))}
		if jc.Failure.Text == "" {
			jc.Failure.Text = msg
		}
	case results.Skipped:
		if msg == "" {
			msg = "skipped (the case gave no reason)"
		}
		jc.Skipped = &junitMessage{Message: msg, Text: msg}
	}
	return jc
}

// systemOut is what a reader needs to understand a case without rerunning
// it: the steps with their offsets, the measured metrics, the details and
// where the diagnostics files are.
func systemOut(c *results.Case) string {
	var b strings.Builder
	for _, s := range c.Steps {
		fmt.Fprintf(&b, "[%s] %s\n", offset(c.Started, s.At), s.Message)
	}
	if len(c.Metrics) > 0 {
		b.WriteString("metrics:\n")
		for _, k := range sortedKeys(c.Metrics) {
			fmt.Fprintf(&b, "  %s = %s\n", k, strconv.FormatFloat(c.Metrics[k], 'g', -1, 64))
		}
	}
	if c.Details != "" {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(strings.TrimRight(c.Details, "\n"))
		b.WriteString("\n")
	}
	if len(c.Diagnostics) > 0 {
		b.WriteString("\ndiagnostics (in the report directory):\n")
		for _, f := range sortedKeys(c.Diagnostics) {
			fmt.Fprintf(&b, "  %s/%s/%s\n", DiagnosticsDir, c.ID, f)
		}
	}
	return b.String()
}

func runProperties(run *results.Run) []junitProperty {
	p := []junitProperty{
		{"lab", run.Lab},
		{"backend", run.Backend},
		{"schema", results.SchemaVersion},
		{"parallel", strconv.Itoa(run.Parallel)},
		{"interrupted", strconv.FormatBool(run.Interrupted)},
	}
	if !run.Started.IsZero() {
		p = append(p, junitProperty{"started", run.Started.UTC().Format(time.RFC3339)})
	}
	return p
}

func suitesName(run *results.Run) string {
	if run.Lab == "" {
		return "gpu-lab conformance"
	}
	return run.Lab + " conformance"
}

// suiteSpan is the wall time a suite's cases covered (they may overlap).
func suiteSpan(run *results.Run, class string) (first, last time.Time) {
	for i := range run.Cases {
		c := &run.Cases[i]
		if className(c) != class || c.Started.IsZero() {
			continue
		}
		end := c.Started.Add(time.Duration(c.Duration))
		if first.IsZero() || c.Started.Before(first) {
			first = c.Started
		}
		if end.After(last) {
			last = end
		}
	}
	return first, last
}

// seconds formats a duration as JUnit time: decimal seconds, which matches
// the schema's SUREFIRE_TIME pattern (no exponent, no sign).
func seconds(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}

func offset(start, at time.Time) string {
	if start.IsZero() || at.IsZero() {
		return at.UTC().Format("15:04:05.000")
	}
	return "+" + strconv.FormatFloat(at.Sub(start).Seconds(), 'f', 3, 64) + "s"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func itoa(n int) string { return strconv.Itoa(n) }

// xmlSafe replaces what XML 1.0 cannot carry at all (most control
// characters, e.g. the escape codes of colored logs) with U+FFFD: CDATA
// is written verbatim, so nothing else would catch them.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF,
			r >= 0xE000 && r <= 0xFFFD,
			r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, s)
}
