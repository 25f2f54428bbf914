package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/state"
	"github.com/gpu-lab/gpu-lab/ci/testenv"
)

// issueFiles is issue 30's directory: the user's files under the names
// labctl uses.
var issueFiles = []string{"kubeconfigs/prod.yaml", "values/mine.yaml", "stages.json", "notes.txt"}

func writeFiles(t *testing.T, dir string, files []string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func checkFiles(t *testing.T, dir string, files []string) {
	t.Helper()
	for _, f := range files {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f))); err != nil || string(b) != f {
			t.Errorf("%s lost: %q, %v", f, b, err)
		}
	}
}

// TestDownRefusesBeforeTouching: `labctl down` on issue 30's directory (no
// marker), on a state dir whose recorded lab is corrupt, and with -f that
// is not the recorded lab, is refused with what to do, and every file
// stays. DOCKER_HOST points at a port nothing listens on, so a down that
// got as far as Docker would fail differently.
func TestDownRefusesBeforeTouching(t *testing.T) {
	t.Setenv("DOCKER_HOST", "tcp://127.0.0.1:1")
	foreign := t.TempDir()
	writeFiles(t, foreign, issueFiles)

	corrupt := recordedDir(t, state.RealLab, "blue")
	if err := corrupt.WriteKubeconfig("tenant-a", []byte(kubeconfigYAML)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(corrupt.LabPath(), []byte("name: blue\ntenants: {\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	recorded := recordedDir(t, state.RealLab, "blue")
	if err := recorded.WriteKubeconfig("tenant-a", []byte(kubeconfigYAML)); err != nil {
		t.Fatal(err)
	}
	green := otherLab(t, "green")
	tests := []struct {
		name string
		args []string
		dir  string
		keep []string
		want []string
	}{
		{"no marker", nil, foreign, issueFiles, []string{"directory " + foreign + " is not a labctl state dir"}},
		{"corrupt recorded lab", nil, string(corrupt), []string{"kubeconfigs/tenant-a.yaml"},
			[]string{corrupt.LabPath() + ", cannot be read", "fix: copy the lab file"}},
		{"-f is another lab", []string{"-f", green}, string(recorded), []string{"kubeconfigs/tenant-a.yaml"},
			[]string{"lab file " + green + ` (lab "green") is not the lab state dir ` + string(recorded), `lab "blue"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runRoot(t, append([]string{"down", "--state-dir", tc.dir}, tc.args...)...)
			if err == nil {
				t.Fatalf("down succeeded:\n%s", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v\nwant it to contain %q", err, w)
				}
			}
			if strings.Contains(out, "removed") {
				t.Errorf("a refused down removed something:\n%s", out)
			}
			if tc.dir != foreign {
				if _, err := os.Stat(filepath.Join(tc.dir, filepath.FromSlash(tc.keep[0]))); err != nil {
					t.Errorf("%s lost: %v", tc.keep[0], err)
				}
				return
			}
			checkFiles(t, tc.dir, tc.keep)
		})
	}
}

// TestDownOfLocalEnvironment: issue 31's case — `labctl down` on a state
// dir of `labctl testenv up`. While the environment runs (it holds the
// lock) down refuses and removes nothing; once it stopped, down removes
// the stale state labctl wrote and says so (never "nothing to remove"),
// keeping a file the user put there; status then names no stage.
func TestDownOfLocalEnvironment(t *testing.T) {
	d := newStateDir(t, state.Testenv)
	l := lab.Default()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(d.WriteLab(l))
	for _, tn := range l.TenantNames() {
		must(d.WriteKubeconfig(tn, []byte(kubeconfigYAML)))
	}
	must(d.WriteBackend(testenv.Backend))
	writeFiles(t, string(d), []string{"notes.txt"})

	release, err := d.Hold("labctl testenv up")
	must(err)
	out, err := runRoot(t, "down", "--state-dir", string(d))
	if err == nil || !strings.Contains(err.Error(), "the local test environment of lab gpu-lab still runs") ||
		!strings.Contains(err.Error(), "`labctl testenv up` (pid") {
		t.Fatalf("down while it runs: %v\n%s", err, out)
	}
	if _, err := os.Stat(d.Kubeconfig("tenant-a")); err != nil {
		t.Fatalf("a refused down removed a kubeconfig: %v", err)
	}
	release()

	out, err = runRoot(t, "down", "--state-dir", string(d))
	if err != nil {
		t.Fatalf("down: %v\n%s", err, out)
	}
	for _, want := range []string{"removed " + d.Kubeconfig("tenant-a"), "removed " + d.LabPath(),
		"lab gpu-lab: removed the stale state of the stopped local test environment"} {
		if !strings.Contains(out, want) {
			t.Errorf("down output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "nothing to remove") {
		t.Errorf("down says nothing to remove after removing:\n%s", out)
	}
	checkFiles(t, string(d), []string{"notes.txt"})
	if _, err := os.Stat(d.Kubeconfig("tenant-a")); !os.IsNotExist(err) {
		t.Errorf("stale kubeconfig left: %v", err)
	}
	out, err = runRoot(t, "status", "--state-dir", string(d))
	if err == nil || strings.Contains(out+err.Error(), "stage") {
		t.Errorf("status after down: %v\n%s", err, out)
	}
}
