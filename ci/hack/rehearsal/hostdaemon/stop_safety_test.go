package hostdaemon

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// holder starts a user's process whose command line names path (`sh -c
// 'read -r _' PATH`: PATH is its $0) and that runs until the test ends,
// blocked reading a pipe only the test holds. It never opens path, so it
// lives whatever happens to the file: `tail -f path` did not — started just
// before Stop removed the file, it exited "no files remaining" before it
// had opened it, and the test failed for a reason that was not Stop's (CI,
// 2026-12-05).
func holder(t *testing.T, path string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", "read -r _", path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = stdin.Close(); _ = cmd.Wait() })
	return cmd
}

// running says the process runs (a killed child not yet waited for is a
// zombie, which signal 0 still reaches).
func running(cmd *exec.Cmd) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "stat"))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

func writeFiles(t *testing.T, files map[string]string) {
	t.Helper()
	for p, data := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Issue 38's try: `rehearse daemon down --dir D` on a directory the
// rehearsal never made, holding a user's files that a user's process names:
// Stop refuses, naming the directory, and the files and the process stay.
func TestStopRefusesADirectoryItDidNotMake(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home")
	l := Layout{Dir: dir}
	user := filepath.Join(dir, "notes.txt")
	writeFiles(t, map[string]string{user: "mine\n", l.daemonJSON(): "{}\n", l.containerdTOML(): "# mine\n"})
	holders := []*exec.Cmd{holder(t, user), holder(t, l.daemonJSON()), holder(t, l.containerdTOML())}

	err := Stop(context.Background(), StopOptions{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "not made by") {
		t.Errorf("Stop of a directory the rehearsal did not make = %v, want a refusal naming %s", err, dir)
	}
	for _, p := range []string{user, l.daemonJSON(), l.containerdTOML()} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the user's %s is gone: %v", p, err)
		}
	}
	for _, c := range holders {
		if !running(c) {
			t.Errorf("the user's %s was stopped", strings.Join(c.Args, " "))
		}
	}
}

// A directory the rehearsal made that also holds a user's file: Stop
// removes the layout's own paths only, keeps the directory with that file,
// and stops no process because its command line names a path there.
func TestStopRemovesOnlyTheLayoutsPaths(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "daemon")
	l := Layout{Dir: dir}
	if err := prepareDir(l); err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(dir, "notes.txt")
	writeFiles(t, map[string]string{
		user: "mine\n", l.daemonJSON(): "{}\n", l.DockerdLog(): "log\n",
		filepath.Join(l.dataRoot(), "image"): "layer\n", l.wrapperPath(): "#!/bin/sh\n",
	})
	proc := holder(t, l.daemonJSON())

	if err := Stop(context.Background(), StopOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{l.daemonJSON(), l.LogDir(), l.dataRoot(), filepath.Dir(l.wrapperPath()), l.marker()} {
		if _, err := os.Lstat(gone); !os.IsNotExist(err) {
			t.Errorf("%s is left (%v)", gone, err)
		}
	}
	if b, err := os.ReadFile(user); err != nil || string(b) != "mine\n" {
		t.Errorf("the user's file: %q, %v", b, err)
	}
	if !running(proc) {
		t.Error("a process was stopped because its command line names the daemon's configuration")
	}
}

// A recorded pid whose start time differs is another process that reused
// the pid: it is not stopped.
func TestStopSparesAProcessThatReusedARecordedPID(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "daemon")
	l := Layout{Dir: dir}
	if err := prepareDir(l); err != nil {
		t.Fatal(err)
	}
	proc := holder(t, "/dev/null")
	p, err := procOf("", proc.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	other := p
	other.Name, other.StartTime = "dockerd", p.StartTime+1
	c := &Changes{l: l, rec: Record{Processes: []Proc{other}}}
	if err := c.update(func(*Record) {}); err != nil {
		t.Fatal(err)
	}
	if err := Stop(context.Background(), StopOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if !running(proc) {
		t.Fatalf("pid %d was stopped although its start time is not the recorded one", p.PID)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("the daemon's directory is left (%v)", err)
	}

	// The recorded process itself is stopped.
	c = &Changes{l: l, rec: Record{Processes: []Proc{p}}}
	if err := prepareDir(l); err != nil {
		t.Fatal(err)
	}
	if err := c.update(func(*Record) {}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := Stop(ctx, StopOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if p.Alive() {
		t.Fatalf("the recorded process %s still runs", p)
	}
}

// A dockerd that was killed leaves each container's cgroup below the
// cgroup parent: they are removed deepest first, and the parent with them.
func TestRemoveCgroupParentWithContainersLeft(t *testing.T) {
	parent := fmt.Sprintf("gpu-lab-cgtest-%d", os.Getpid())
	dirs := cgroupParentDirs(parent)
	if os.Geteuid() != 0 || len(dirs) == 0 {
		t.Skip("needs root and a cgroup hierarchy")
	}
	d := dirs[len(dirs)-1]
	if err := os.MkdirAll(filepath.Join(d, "0123abcd", "child"), 0o755); err != nil {
		t.Skipf("cannot make cgroups here: %v", err)
	}
	t.Cleanup(func() {
		_ = os.Remove(filepath.Join(d, "0123abcd", "child"))
		_ = os.Remove(filepath.Join(d, "0123abcd"))
		_ = os.Remove(d)
	})
	existed, err := removeCgroupParent(parent)
	if err != nil || !existed {
		t.Fatalf("removeCgroupParent = %v, %v; want it removed", existed, err)
	}
	if _, err := os.Stat(d); !os.IsNotExist(err) {
		t.Fatalf("%s is left (%v)", d, err)
	}
}
