package hostdaemon

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// What a `daemon up` killed mid-start leaves: the namespace it recorded and
// made, and a daemon started in it whose pid it had not recorded yet.
// Stop finds that process by its namespace, then removes the namespace,
// the cgroup parent it recorded and the directory.
func TestStopUndoesAStartKilledMidWay(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a network namespace")
	}
	for _, p := range []string{"ip", "nsenter", "sleep"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("needs %s", p)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "daemon")
	netns := fmt.Sprintf("gpu-lab-kt-%d", os.Getpid())
	c, err := Claim(ctx, dir, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.update(func(r *Record) { r.Netns, r.CgroupParent = netns, netns }); err != nil {
		t.Fatal(err)
	}
	if err := createNetns(ctx, netns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = deleteNetns(context.Background(), netns) })
	daemon := exec.Command("nsenter", "--net="+NetnsPath(netns), "--", "sleep", "600")
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = daemon.Process.Kill(); _ = daemon.Wait() })
	for { // until nsenter has entered the namespace and run sleep
		if in, _ := netnsProcesses(NetnsPath(netns)); len(in) == 1 && in[0].Name == "sleep" {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the process never entered the namespace")
		}
		time.Sleep(10 * time.Millisecond)
	}
	release(c.l.Dir) // the claiming labctl is gone, as after a SIGKILL

	if err := Stop(ctx, StopOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if running(daemon) {
		t.Error("the unrecorded process in the namespace still runs")
	}
	for _, p := range append([]string{NetnsPath(netns), dir}, cgroupParentDirs(netns)...) {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is left (%v)", p, err)
		}
	}
}
