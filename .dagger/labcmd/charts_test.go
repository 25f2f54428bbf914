package labcmd

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fakeHelm puts a `helm` on PATH that logs its arguments one per line and
// answers `helm pull ... --destination D` by writing `archives` files into
// D (a name derived from the repository URL, as helm does), or fails.
func fakeHelm(t *testing.T, archives int, fail bool) (dir, logPath string) {
	t.Helper()
	dir = t.TempDir()
	logPath = filepath.Join(dir, "calls.log")
	failing := ""
	if fail {
		failing = `echo 'Error: chart "kamaji" version "9" not found' >&2; exit 1`
	}
	script := `#!/bin/sh
for a in "$@"; do echo "$a"; done > ` + logPath + `
[ "$1" = pull ] || exit 3
` + failing + `
while [ $# -gt 0 ]; do
  case $1 in --destination) d=$2;; esac; shift
done
i=0
while [ $i -lt ` + strconv.Itoa(archives) + ` ]; do
  echo "archive $i" > "$d/from-repo-url-$i.tgz"; i=$((i+1))
done
`
	if err := os.WriteFile(filepath.Join(dir, "helm"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, logPath
}

func runPull(t *testing.T, helmDir string, c BundleChart, out string) (string, int) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh on this machine")
	}
	args := PullChart(c, out)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "PATH="+helmDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	b, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(b), 0
	case errors.As(err, &ee):
		return string(b), ee.ExitCode()
	default:
		t.Fatalf("pull: %v\n%s", err, b)
		return "", 0
	}
}

var kamaji = BundleChart{Name: "kamaji", Repo: "https://clastix.github.io/charts", Version: "0.0.0+latest", File: "kamaji-0.0.0+latest.tgz"}

// The chart helm pulled, under whatever name helm gave it, ends up at the
// file labctl's index names; helm gets the chart, repository and version
// as single arguments.
func TestPullChartRenamesTheOneArchive(t *testing.T) {
	helmDir, logPath := fakeHelm(t, 1, false)
	out := filepath.Join(t.TempDir(), "chart", kamaji.File)
	msg, code := runPull(t, helmDir, kamaji, out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "archive 0\n" {
		t.Fatalf("%s = %q, %v; want helm's archive", out, b, err)
	}
	calls, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimSpace(string(calls)), "\n")
	want := []string{"pull", "kamaji", "--repo", "https://clastix.github.io/charts", "--version", "0.0.0+latest", "--destination"}
	if len(args) != len(want)+1 || strings.Join(args[:len(want)], " ") != strings.Join(want, " ") {
		t.Fatalf("helm got %q, want %q DIR", args, want)
	}
	if filepath.Dir(out) == args[len(want)] {
		t.Errorf("helm pulled straight into the output directory %s; it must get a fresh one", args[len(want)])
	}
}

// No archive, two archives, or a failing helm: the exec fails, saying why,
// and leaves nothing at the output path.
func TestPullChartFailsWithoutExactlyOneArchive(t *testing.T) {
	for _, tt := range []struct {
		name     string
		archives int
		fail     bool
		want     string
	}{
		{name: "none", archives: 0, want: "left 0 archives"},
		{name: "two", archives: 2, want: "left 2 archives"},
		{name: "helm fails", archives: 1, fail: true, want: `version "9" not found`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			helmDir, _ := fakeHelm(t, tt.archives, tt.fail)
			out := filepath.Join(t.TempDir(), kamaji.File)
			msg, code := runPull(t, helmDir, kamaji, out)
			if code == 0 || !strings.Contains(msg, tt.want) {
				t.Errorf("exit %d, output %q; want a failure saying %q", code, msg, tt.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s exists after a failed pull (%v)", out, err)
			}
		})
	}
}

func TestPulledChartIsUnderItsOwnDirectory(t *testing.T) {
	if got := PulledChart(kamaji); got != "/chart/kamaji-0.0.0+latest.tgz" {
		t.Errorf("PulledChart = %q", got)
	}
	if got := PullChart(kamaji, "/chart/x.tgz"); got[0] != "sh" || got[len(got)-1] != "/chart/x.tgz" || got[len(got)-4] != "kamaji" {
		t.Errorf("PullChart = %q", got)
	}
}

func TestMissingCharts(t *testing.T) {
	charts := []BundleChart{
		{Name: "hami", Repo: "https://project-hami.github.io/HAMi/", Version: "2.10.0", File: "hami-2.10.0.tgz"},
		{Name: "kamaji", Repo: "https://clastix.github.io/charts", Version: "0.0.0+latest", File: "kamaji-0.0.0+latest.tgz"},
	}
	for _, tc := range []struct {
		name    string
		entries []string
		want    []string // substrings of the error; none: no error
	}{
		{"all there, with others", []string{"kamaji-0.0.0+latest.tgz", "hami-2.10.0.tgz", "README"}, nil},
		{"one missing", []string{"hami-2.10.0.tgz"}, []string{"lacks 1 of the lab's 2",
			"kamaji-0.0.0+latest.tgz (helm pull kamaji --repo https://clastix.github.io/charts --version 0.0.0+latest)",
			"leave --charts out"}},
		{"empty directory", nil, []string{"lacks 2 of the lab's 2", "hami-2.10.0.tgz", "kamaji-0.0.0+latest.tgz"}},
		{"a name that only looks alike", []string{"hami-2.10.0.tgz.part", "kamaji-0.0.0+latest.tgz"},
			[]string{"lacks 1", "hami-2.10.0.tgz (helm pull hami"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := MissingCharts(charts, tc.entries)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("MissingCharts = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("MissingCharts = nil, want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
