package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/state"
)

// TestChangingCommandsFollowTheLabRule: up, run and testenv up act on the
// lab the state dir records; another -f is refused naming both labs, a
// state dir of the other backend or one an environment still runs on is
// refused, all before the daemon or any process is started (DOCKER_HOST
// points at a port nothing listens on), and the record stays as it was.
func TestChangingCommandsFollowTheLabRule(t *testing.T) {
	t.Setenv("DOCKER_HOST", "tcp://127.0.0.1:1")
	green := otherLab(t, "green")
	lab := recordedDir(t, state.RealLab, "blue")
	local := recordedDir(t, state.Testenv, "blue")
	running := recordedDir(t, state.Testenv, "blue")
	release, err := running.Hold("labctl testenv up")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	testenvUpIn := func(file string, d state.Dir) func() (string, error) {
		return func() (string, error) {
			var out bytes.Buffer
			err := runTestenvUp(context.Background(), testenvUp{labFile: file, stateDir: d}, &out, &out)
			return out.String(), err
		}
	}
	root := func(args ...string) func() (string, error) {
		return func() (string, error) { return runRoot(t, args...) }
	}
	other := `(lab "green") is not the lab state dir `
	tests := []struct {
		name string
		run  func() (string, error)
		dir  state.Dir
		want string
	}{
		{"up -f another lab", root("up", "-f", green, "--state-dir", string(lab)), lab, other + string(lab)},
		{"run -f another lab", root("run", "-f", green, "--state-dir", string(lab), "--report-dir", t.TempDir()), lab, other + string(lab)},
		{"up on a local environment's dir", root("up", "--state-dir", string(local)), local, "was made by `labctl testenv up`, not `labctl up`"},
		{"testenv up -f another lab", testenvUpIn(green, local), local, other + string(local)},
		{"testenv up on a real lab's dir", testenvUpIn("", lab), lab, "was made by `labctl up`, not `labctl testenv up`"},
		{"testenv up where one runs", testenvUpIn("", running), running, "is in use by `labctl testenv up` (pid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, err := os.ReadFile(tc.dir.LabPath())
			if err != nil {
				t.Fatal(err)
			}
			out, err := tc.run()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant it to contain %q\n%s", err, tc.want, out)
			}
			if after, _ := os.ReadFile(tc.dir.LabPath()); !bytes.Equal(before, after) {
				t.Errorf("the recorded lab changed:\n%s", after)
			}
		})
	}
}

// TestReadingCommandsFollowTheLabRule: status, shell, kubeconfig and test
// read the lab the state dir records; a corrupt record is an error naming
// the file, never the seed lab.
func TestReadingCommandsFollowTheLabRule(t *testing.T) {
	d := recordedDir(t, state.RealLab, "blue")
	if err := d.WriteKubeconfig("tenant-a", []byte(kubeconfigYAML)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.LabPath(), []byte("name: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"status"}, {"shell"}, {"kubeconfig", "tenant-a"}, {"test", "--report-dir", t.TempDir()},
	} {
		t.Run(args[0], func(t *testing.T) {
			out, err := runRoot(t, append(args, "--state-dir", string(d))...)
			if err == nil || !strings.Contains(err.Error(), d.LabPath()+", cannot be read") {
				t.Errorf("err = %v\n%s", err, out)
			}
		})
	}
}

// TestStatusOfLocalEnvironmentWithoutKubeconfigs: status of a local
// environment's state dir whose kubeconfigs are gone never speaks of
// stage tenants, which only the real lab has.
func TestStatusOfLocalEnvironmentWithoutKubeconfigs(t *testing.T) {
	d := recordedDir(t, state.Testenv, "gpu-lab")
	out, err := runRoot(t, "status", "--state-dir", string(d))
	if ee, ok := err.(exitError); !ok || ee.code != 1 {
		t.Fatalf("status of a stopped local environment: %v, want exit code 1 (not healthy)", err)
	}
	want := "tenant tenant-a   no kubeconfig: `labctl testenv up --state-dir " + string(d) + "` writes it"
	if !strings.Contains(out, want) || strings.Contains(out, "stage tenants") || strings.Contains(out, "stage  ") {
		t.Errorf("status:\n%s\nwant %q and no stage line", out, want)
	}
}

// TestHelpStatesTheLabRule: every command that resolves a lab says how in
// --help.
func TestHelpStatesTheLabRule(t *testing.T) {
	for _, name := range []string{"up", "down", "run", "status", "shell", "kubeconfig", "test"} {
		cmd, _, err := newRootCommand(streams{}).Find([]string{name})
		if err != nil || !strings.Contains(cmd.Long, labRule) {
			t.Errorf("labctl %s --help lacks the lab rule (%v)", name, err)
		}
	}
	if c := newTestenvUpCommand(streams{}); !strings.Contains(c.Long, labRule) {
		t.Error("labctl testenv up --help lacks the lab rule")
	}
}
