package report

import (
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

const junitXSD = "testdata/junit-10.xsd"

// xmllintValidate validates an XML file against the JUnit schema GitLab's
// parser accepts (see testdata/README.md). Go has no XSD validator, so the
// test uses libxml2's xmllint (Debian package libxml2-utils).
func xmllintValidate(t *testing.T, path string) error {
	t.Helper()
	bin, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint not found: install the Debian package libxml2-utils to validate junit.xml against " + junitXSD)
	}
	out, err := exec.Command(bin, "--noout", "--schema", junitXSD, path).CombinedOutput()
	if err != nil {
		return &xmllintError{string(out)}
	}
	return nil
}

type xmllintError struct{ out string }

func (e *xmllintError) Error() string { return "xmllint: " + e.out }

func TestJUnitValidatesAgainstSchema(t *testing.T) {
	hostile := sampleRun(t)
	hostile.Cases[11].Details = "log with \x1b[31mcolour\x1b[0m codes, a NUL \x00, a CDATA end ]]> and <tags> & ampersands"
	hostile.Cases[11].Message = "reason with \"quotes\", <angle> & \x07bell\nand a second line"
	tests := map[string]*results.Run{
		"sample":             sampleRun(t),
		"hostile text":       hostile,
		"interrupted, empty": {Schema: results.SchemaVersion, Lab: "gpu-lab", Backend: "kind+kamaji+hami", Interrupted: true},
	}
	for name, run := range tests {
		t.Run(name, func(t *testing.T) {
			dir := writeSample(t, run)
			if err := xmllintValidate(t, filepath.Join(dir, JUnitFile)); err != nil {
				t.Fatalf("junit.xml does not validate against %s:\n%v", junitXSD, err)
			}
		})
	}
}

// The validator must be able to say no, or the test above proves nothing.
func TestJUnitSchemaRejectsWhatGitLabCannotRead(t *testing.T) {
	bad := map[string]string{
		"testcase without name": `<testsuites><testsuite name="s" tests="1" failures="0" errors="0">` +
			`<testcase classname="c"/></testsuite></testsuites>`,
		"time with unit":        `<testsuites><testsuite name="s" tests="1" failures="0" errors="0" time="1.5s"></testsuite></testsuites>`,
		"skipped on testsuites": `<testsuites skipped="1"></testsuites>`,
		"suite without counts":  `<testsuites><testsuite name="s"></testsuite></testsuites>`,
		"file attribute on a case": `<testsuites><testsuite name="s" tests="1" failures="0" errors="0">` +
			`<testcase name="n" file="x.go"/></testsuite></testsuites>`,
	}
	for name, doc := range bad {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "junit.xml")
			if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := xmllintValidate(t, path); err == nil {
				t.Fatalf("schema accepted %s", doc)
			}
		})
	}
}

// Parsed view of what CI readers look at.
type parsedSuites struct {
	Tests    int           `xml:"tests,attr"`
	Failures int           `xml:"failures,attr"`
	Time     string        `xml:"time,attr"`
	Suites   []parsedSuite `xml:"testsuite"`
}

type parsedSuite struct {
	Name       string `xml:"name,attr"`
	Tests      int    `xml:"tests,attr"`
	Failures   int    `xml:"failures,attr"`
	Skipped    int    `xml:"skipped,attr"`
	Properties []struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	} `xml:"properties>property"`
	Cases []struct {
		Name      string `xml:"name,attr"`
		ClassName string `xml:"classname,attr"`
		Time      string `xml:"time,attr"`
		Failure   *struct {
			Message string `xml:"message,attr"`
			Text    string `xml:",chardata"`
		} `xml:"failure"`
		Skipped *struct {
			Message string `xml:"message,attr"`
		} `xml:"skipped"`
		SystemOut *string `xml:"system-out"`
	} `xml:"testcase"`
}

func TestJUnitCarriesWhatGitLabAndGitHubRead(t *testing.T) {
	run := sampleRun(t)
	dir := writeSample(t, run)
	var doc parsedSuites
	if err := xml.Unmarshal([]byte(readFile(t, filepath.Join(dir, JUnitFile))), &doc); err != nil {
		t.Fatal(err)
	}
	passed, failed, skipped := run.Counts()
	if doc.Tests != passed+failed+skipped || doc.Failures != failed {
		t.Errorf("testsuites tests=%d failures=%d, want %d and %d", doc.Tests, doc.Failures, passed+failed+skipped, failed)
	}
	if doc.Time != "47.912" {
		t.Errorf("testsuites time = %q, want the run's wall time in seconds, 47.912", doc.Time)
	}
	timeRE := regexp.MustCompile(`^[0-9]+\.[0-9]{3}$`)
	byID := map[string]*results.Case{}
	for i := range run.Cases {
		byID[run.Cases[i].ID] = &run.Cases[i]
	}
	names := map[string]bool{}
	seen := 0
	for _, s := range doc.Suites {
		props := map[string]string{}
		for _, p := range s.Properties {
			props[p.Name] = p.Value
		}
		if props["backend"] != run.Backend || props["lab"] != run.Lab {
			t.Errorf("suite %s properties %v lack backend %q / lab %q", s.Name, props, run.Backend, run.Lab)
		}
		if s.Tests != len(s.Cases) {
			t.Errorf("suite %s tests=%d but holds %d cases", s.Name, s.Tests, len(s.Cases))
		}
		var f, sk int
		for _, jc := range s.Cases {
			seen++
			id, _, _ := strings.Cut(jc.Name, " ")
			c := byID[id]
			if c == nil {
				t.Errorf("testcase %q does not start with a case ID", jc.Name)
				continue
			}
			if jc.Name != c.ID+" "+c.Title {
				t.Errorf("testcase name %q, want %q", jc.Name, c.ID+" "+c.Title)
			}
			if names[jc.ClassName+"\x00"+jc.Name] {
				t.Errorf("classname+name %s/%s not unique: GitLab keeps only the first", jc.ClassName, jc.Name)
			}
			names[jc.ClassName+"\x00"+jc.Name] = true
			if jc.ClassName != s.Name {
				t.Errorf("%s: classname %q outside its suite %q", c.ID, jc.ClassName, s.Name)
			}
			if !timeRE.MatchString(jc.Time) {
				t.Errorf("%s: time %q is not decimal seconds", c.ID, jc.Time)
			} else if want := fmt.Sprintf("%.3f", time.Duration(c.Duration).Seconds()); jc.Time != want {
				t.Errorf("%s: time %q, want %s", c.ID, jc.Time, want)
			}
			switch c.Status {
			case results.Failed:
				f++
				if jc.Failure == nil || jc.Failure.Message != c.Message || strings.TrimSpace(jc.Failure.Text) != c.Message {
					t.Errorf("%s: failure %+v must carry %q in both message and text", c.ID, jc.Failure, c.Message)
				}
			case results.Skipped:
				sk++
				if jc.Skipped == nil || jc.Skipped.Message != c.Message {
					t.Errorf("%s: skipped %+v must carry %q", c.ID, jc.Skipped, c.Message)
				}
			default:
				if jc.Failure != nil || jc.Skipped != nil {
					t.Errorf("%s passed but has failure/skipped", c.ID)
				}
			}
			if len(c.Steps) > 0 && (jc.SystemOut == nil || !strings.Contains(*jc.SystemOut, c.Steps[len(c.Steps)-1].Message)) {
				t.Errorf("%s: system-out lacks its steps", c.ID)
			}
			for file := range c.Diagnostics {
				if jc.SystemOut == nil || !strings.Contains(*jc.SystemOut, "diagnostics/"+c.ID+"/"+file) {
					t.Errorf("%s: system-out does not point to diagnostics file %s", c.ID, file)
				}
			}
		}
		if s.Failures != f || s.Skipped != sk {
			t.Errorf("suite %s failures=%d skipped=%d, counted %d and %d", s.Name, s.Failures, s.Skipped, f, sk)
		}
	}
	if seen != len(run.Cases) {
		t.Errorf("junit.xml holds %d testcases, run has %d", seen, len(run.Cases))
	}
}

func TestClassName(t *testing.T) {
	tests := []struct {
		c    results.Case
		want string
	}{
		{results.Case{Tenants: []string{"tenant-a"}, Scenario: "card-sharing"}, "tenant-a/card-sharing"},
		{results.Case{Tenants: []string{"tenant-b"}}, "tenant-b"},
		{results.Case{Tenants: []string{"tenant-a", "tenant-b"}}, "tenant-a+tenant-b"},
		{results.Case{Scenario: "setup"}, "lab/setup"},
		{results.Case{}, "lab"},
	}
	for _, tt := range tests {
		if got := className(&tt.c); got != tt.want {
			t.Errorf("className(%v, %q) = %q, want %q", tt.c.Tenants, tt.c.Scenario, got, tt.want)
		}
	}
}

func TestJUnitNamesStayUniqueWhenIDsRepeat(t *testing.T) {
	c := results.Case{ID: "TC-01", Title: "t", Tenants: []string{"tenant-a"}, Status: results.Passed}
	b, err := junitXML(&results.Run{Cases: []results.Case{c, c, c}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`name="TC-01 t"`, `name="TC-01 t (#2)"`, `name="TC-01 t (#3)"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("junit lacks %s:\n%s", want, b)
		}
	}
}
