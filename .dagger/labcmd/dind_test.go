package labcmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDindArgs runs the daemon's start script against a cgroup tree of each
// version, with a stand-in for the published entrypoint: on cgroup v1 it
// opens the devices cgroup ("a"), on cgroup v2 it touches nothing, and in
// both it hands the daemon's arguments over unchanged. The unified-cgroup
// step mounts, so it is left out here (no unified line in the process's
// cgroups, or one already mounted) and proven by the rehearsal's run.
func TestDindArgs(t *testing.T) {
	args := DindArgs()
	if args[0] != "sh" || args[1] != "-c" {
		t.Fatalf("DindArgs = %q, want a sh -c script", args)
	}
	for _, tc := range []struct {
		name          string
		v2            bool
		wantOpen      bool
		cgroup, mount string
	}{
		{"cgroup v1", false, true, "4:memory:/x\n", ""},
		{"hybrid cgroup v1, unified mounted", false, true, "4:memory:/x\n0::/x\n", "cgroup2 CG/unified cgroup2 rw 0 0\n"},
		{"cgroup v2", true, false, "0::/x\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "cgroup")
			allow := filepath.Join(root, "devices", "devices.allow")
			mustWrite(t, allow, "", 0o644)
			if tc.v2 {
				mustWrite(t, filepath.Join(root, "cgroup.controllers"), "cpu memory", 0o644)
			}
			bin := filepath.Join(dir, "bin")
			got := filepath.Join(dir, "args")
			mustWrite(t, filepath.Join(bin, DindEntrypoint), "#!/bin/sh\nprintf '%s\\n' \"$@\" > "+got+"\n", 0o755)
			proc := filepath.Join(dir, "proc")
			mustWrite(t, filepath.Join(proc, "cgroup"), tc.cgroup, 0o644)
			mustWrite(t, filepath.Join(proc, "mounts"), strings.ReplaceAll(tc.mount, "CG", root), 0o644)
			script := strings.ReplaceAll(strings.ReplaceAll(args[2], cgroupRoot, root), procSelf, proc)
			cmd := exec.Command(args[0], append([]string{args[1], script}, args[3:]...)...)
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("script: %v: %s", err, out)
			}
			b, err := os.ReadFile(allow)
			if err != nil {
				t.Fatal(err)
			}
			if opened := strings.TrimSpace(string(b)) == "a"; opened != tc.wantOpen {
				t.Errorf("devices.allow = %q, want opened=%v", b, tc.wantOpen)
			}
			passed, err := os.ReadFile(got)
			if err != nil {
				t.Fatalf("the entrypoint did not run: %v", err)
			}
			if want := strings.Join(args[4:], "\n") + "\n"; string(passed) != want {
				t.Errorf("entrypoint got %q, want %q", passed, want)
			}
		})
	}
}

func mustWrite(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}
