package labcmd

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeDocker puts a `docker` on PATH that logs its arguments and fails the
// subcommands listed in fail (first argument, or "network"/"volume" plus
// "prune"), and returns the log path.
func fakeDocker(t *testing.T, fail ...string) (dir, logPath string) {
	t.Helper()
	dir = t.TempDir()
	logPath = filepath.Join(dir, "calls.log")
	script := "#!/bin/sh\necho \"$*\" >> " + logPath + "\n" +
		"case \"$1 $2\" in\n" +
		"  \"ps -aq\") echo c1; echo c2 ;;\n" +
		"esac\n"
	for _, f := range fail {
		script += "case \"$*\" in \"" + f + "\"*) echo \"fake docker: $* failed\" >&2; exit 1 ;; esac\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "docker"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, logPath
}

func runWipe(t *testing.T, dir string) (string, int) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh on this machine")
	}
	args := Wipe()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	default:
		t.Fatalf("wipe: %v\n%s", err, out)
		return "", 0
	}
}

// A failed `docker rm` (e.g. a container the daemon cannot remove) must not
// stop the wipe: networks and volumes are still pruned, and the exit code
// and output say what failed.
func TestWipeIsBestEffort(t *testing.T) {
	tests := []struct {
		name       string
		fail       []string
		wantCode   int
		wantOutput string
	}{
		{name: "all succeed", wantCode: 0, wantOutput: "cleared containers, networks and volumes"},
		{name: "rm fails", fail: []string{"rm"}, wantCode: 1, wantOutput: "failed in: rm"},
		{name: "network prune fails", fail: []string{"network prune"}, wantCode: 1, wantOutput: "failed in: network-prune"},
		{name: "everything fails", fail: []string{"ps", "network prune", "volume prune"}, wantCode: 1,
			wantOutput: "failed in: ps network-prune volume-prune"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, logPath := fakeDocker(t, tt.fail...)
			out, code := runWipe(t, dir)
			if code != tt.wantCode || !strings.Contains(out, tt.wantOutput) {
				t.Errorf("exit %d, output %q; want exit %d and %q", code, out, tt.wantCode, tt.wantOutput)
			}
			calls, err := os.ReadFile(logPath)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"network prune -f", "volume prune -af"} {
				if !strings.Contains(string(calls), want) {
					t.Errorf("docker %s never ran; calls:\n%s", want, calls)
				}
			}
			if !strings.Contains(string(calls), "ps -aq") {
				t.Errorf("docker ps -aq never ran; calls:\n%s", calls)
			}
		})
	}
}

// The containers listed by `docker ps -aq` are the ones removed.
func TestWipeRemovesListedContainers(t *testing.T) {
	dir, logPath := fakeDocker(t)
	if _, code := runWipe(t, dir); code != 0 {
		t.Fatalf("exit %d", code)
	}
	calls, _ := os.ReadFile(logPath)
	if !strings.Contains(string(calls), "rm -fv c1 c2") {
		t.Fatalf("want `docker rm -fv c1 c2`; calls:\n%s", calls)
	}
}
