package stages

import (
	"context"
	"strings"
	"testing"
)

// TestWorkersLeaveTheHostsKernelAlone: a worker is privileged and mounts
// the host's /lib/modules, so no command the workers stage runs or plans
// in it loads a kernel module or turns swap off (join.go, "The host's
// kernel"); the joins still succeed.
func TestWorkersLeaveTheHostsKernelAlone(t *testing.T) {
	e, w, _ := joiningEnv(t)
	plan, err := workersStage{}.Plan(e)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (workersStage{}).Run(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	if len(w.steps) == 0 {
		t.Fatal("no kubeadm step ran")
	}
	d := e.Docker.(*fakeDocker)
	for _, line := range append(plan, d.calls...) {
		for _, bad := range []string{"modprobe", "insmod", "swapoff"} {
			if strings.Contains(line, bad) {
				t.Errorf("the workers stage runs or plans %s in a privileged worker: %s", bad, line)
			}
		}
	}
}
