package suite

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// TC-18 where the card's tenant runs no device plugin (the local test
// environment) is skipped saying why, before it creates anything; where
// the plugin runs, it goes on.
func TestTC18SkippedWithoutThePlugin(t *testing.T) {
	for _, tc := range []struct {
		name   string
		objs   map[string][]runtime.Object
		status results.Status
		msg    string
	}{
		{"no plugin", nil, results.Skipped, "skipped: tenant tenant-a does not run HAMi's device plugin (no DaemonSet kube-system/hami-device-plugin)"},
		// The plugin's DaemonSet is there: the case runs, and on a fake
		// clientset with no such Node it fails locating the card.
		{"plugin", map[string][]runtime.Object{"tenant-a": {pluginDaemonSet()}}, results.Failed, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, fakes := fakeRunner(tc.objs)
			r.tm.Case, r.tm.Cleanup, r.tm.Bind = 10*time.Second, time.Second, time.Second
			hw := pickHardware(r.cfg.Lab)
			b := &shareCard{place: *hw.Share}
			c := &caseRun{Case: caseByID("TC-18"), tenants: []string{b.tenant()}, run: func(ctx context.Context, t *caseT) error { return b.tc18(ctx, t) }}
			res := results.Case{ID: c.ID, Tenants: c.tenants, Started: time.Now()}
			r.runCase(context.Background(), c, &lane{}, &res)
			if res.Status != tc.status || !strings.Contains(res.Message, tc.msg) {
				t.Errorf("TC-18 %s: %q, want %s containing %q", res.Status, res.Message, tc.status, tc.msg)
			}
			if tc.status == results.Skipped {
				for _, a := range fakes["tenant-a"].Actions() {
					if a.GetVerb() == "create" {
						t.Errorf("a skipped TC-18 created %s", a.GetResource().Resource)
					}
				}
			}
		})
	}
}

// A container whose log never holds the end line of its environment fails
// the case once the bind timeout passes, saying what the log held; the
// fake clientset's log is "fake logs", no environment at all.
func TestContainerEnvWithoutTheDump(t *testing.T) {
	r, _ := fakeRunner(nil)
	r.tm.Bind = 1200 * time.Millisecond
	tt := &caseT{r: r, res: &results.Case{ID: "TC-18"}, lane: &lane{}, caseID: "TC-18"}
	start := time.Now()
	_, err := tt.containerEnv(context.Background(), podRef{"tenant-a", "ns", "tc18-env-1"}, "main")
	if err == nil || !strings.Contains(err.Error(), `container main of pod ns/tc18-env-1 did not print its environment within 1.2s: the log has 0 variable(s) and no "gpu-lab-env-end" line yet`) {
		t.Errorf("containerEnv = %v", err)
	}
	if d := time.Since(start); d < r.tm.Bind {
		t.Errorf("gave up after %s, before the bind timeout %s", d, r.tm.Bind)
	}
}

// TC-18's pod runs the mock NVML library's image, which every worker
// already holds, with its command, asked IfNotPresent so an offline lab
// (a bundle) needs no registry.
func TestPodObjectImageAndCommand(t *testing.T) {
	r, _ := fakeRunner(nil)
	tt := &caseT{r: r, res: &results.Case{ID: "TC-18"}, lane: &lane{}, caseID: "TC-18"}
	c := tt.podObject("tenant-a", "ns", gpuPod{name: "p", gpus: 1, image: "example/env:1", command: envDumpCommand}).Spec.Containers[0]
	if c.Image != "example/env:1" || strings.Join(c.Command, " ") != strings.Join(envDumpCommand, " ") || c.ImagePullPolicy != "IfNotPresent" {
		t.Errorf("container = image %q, command %q, pull %q", c.Image, c.Command, c.ImagePullPolicy)
	}
	if c := tt.podObject("tenant-a", "ns", gpuPod{name: "p", gpus: 1}).Spec.Containers[0]; c.Image != r.cfg.Image || c.Command != nil {
		t.Errorf("other cases' container = image %q, command %q, want the suite's image and its entrypoint", c.Image, c.Command)
	}
}
