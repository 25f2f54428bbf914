package labcmd

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestHAMiImage(t *testing.T) {
	cases := []struct {
		name, lab, want, err string
	}{
		{"no versions block: the pinned tag", "name: x\n", "docker.io/projecthami/hami:v2.10.0", ""},
		{"the lab's tag", "name: x\nversions:\n  hamiImage: v2.9.0\n", "docker.io/projecthami/hami:v2.9.0", ""},
		{"a reference instead of a tag", "versions:\n  hamiImage: other/hami:v2.10.0\n", "", "want a tag"},
		{"not YAML", "versions: [", "", "lab file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := HAMiImage([]byte(tc.lab))
			if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("HAMiImage = %q, %v; want %q, error containing %q", got, err, tc.want, tc.err)
			}
		})
	}
}

func TestQuickCommands(t *testing.T) {
	if got := strings.Join(QuickBuild(), " "); got != "labctl testenv build" {
		t.Errorf("QuickBuild = %q", got)
	}
	args := QuickTest(Suite{Run: "TC-01|tenant isolation", Parallel: 2})
	if args[0] != "sh" || args[1] != "-uc" || args[3] != "quick-test" {
		t.Fatalf("QuickTest = %q, want sh -uc SCRIPT quick-test labctl test …", args)
	}
	if want := Test(Suite{Run: "TC-01|tenant isolation", Parallel: 2}); !slices.Equal(args[4:], want) {
		t.Errorf("QuickTest passes %q, want labctl test's own arguments %q", args[4:], want)
	}
	for _, want := range []string{"labctl testenv up -f " + ConfigPath, "--state-dir " + StateDir,
		"--hami-binary " + QuickHAMiPath, `"$@"`, "kill -TERM"} {
		if !strings.Contains(args[2], want) {
			t.Errorf("quick-test script lacks %q", want)
		}
	}
}

// The script run with stand-ins for labctl: the suite runs once the
// environment printed "ready", with its arguments intact, its exit code is
// the script's, and the environment is stopped; an environment that exits
// before ready fails the script with its code and log.
func TestQuickScriptRuns(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	cases := []struct {
		name, upScript string
		testCode       int
		wantCode       int
		wantOut        []string
	}{
		{"ready, suite fails", "echo hami: HAMi scheduler v2.10.0 from x; echo ready; trap 'echo stopped; exit 0' TERM; " +
			"while :; do sleep 0.1; done", 3, 3,
			[]string{"hami: HAMi scheduler v2.10.0 from x",
				"suite args: test --state-dir /lab/state --report-dir /lab/reports --run TC-01|tenant isolation"}},
		{"ready, suite passes", "echo ready; trap 'exit 0' TERM; while :; do sleep 0.1; done", 0, 0, []string{"suite args: test"}},
		{"never ready", "echo 'etcd: disk on fire'; exit 4", 0, 4, []string{"exited with code 4 before it was ready", "disk on fire"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			bin := filepath.Join(root, "bin")
			if err := os.MkdirAll(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			fake := "#!/bin/sh\nif [ \"$1\" = testenv ]; then\n" + tc.upScript + "\nfi\necho \"suite args: $*\"\nexit " +
				strconv.Itoa(tc.testCode) + "\n"
			if err := os.WriteFile(filepath.Join(bin, "labctl"), []byte(fake), 0o755); err != nil {
				t.Fatal(err)
			}
			args := QuickTest(Suite{Run: "TC-01|tenant isolation"})
			script := strings.ReplaceAll(args[2], WorkDir, filepath.Join(root, "lab"))
			// The deadline only ends a script that hangs; nothing is timed.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, args[0], append([]string{args[1], script}, args[3:]...)...)
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d; output:\n%s", code, tc.wantCode, out)
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
