package suite

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/report"
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
		{"no plugin", nil, results.Skipped, "skipped: tenant tenant-a does not run HAMi's device plugin (no DaemonSet " +
			"kube-system/hami-device-plugin)"},
		// The plugin's DaemonSet is there: the case runs, and on a fake
		// clientset with no such Node it fails locating the card.
		{"plugin", map[string][]runtime.Object{"tenant-a": {pluginDaemonSet()}}, results.Failed, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, fakes := fakeRunner(tc.objs)
			r.tm.Case, r.tm.Cleanup, r.tm.Bind = 10*time.Second, time.Second, time.Second
			hw := pickHardware(r.cfg.Lab)
			b := &shareCard{place: *hw.Share}
			c := &caseRun{Case: caseByID("TC-18"), tenants: []string{b.tenant()},
				run: func(ctx context.Context, t *caseT) error { return b.tc18(ctx, t) }}
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
	_, raw, err := tt.containerEnv(context.Background(), podRef{"tenant-a", "ns", "tc18-env-1"}, "main")
	if err == nil || !strings.Contains(err.Error(), `container main of pod ns/tc18-env-1 did not print its environment within 1.2s: the log `+
		`has 0 variable(s) and no "gpu-lab-env-end" line yet`) {
		t.Errorf("containerEnv = %v", err)
	}
	if raw != "fake logs" {
		t.Errorf("the log read = %q, want the fake's, as read", raw)
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

// runTC18 runs TC-18 on tenant-a of a fake runner that runs HAMi's device
// plugin DaemonSet: pods come back from create bound to the worker's node,
// Running, holding the card they were pinned to with the slice they asked
// (as HAMi's Filter and Bind leave them), and every container's log is log.
func runTC18(t *testing.T, log string) results.Case {
	t.Helper()
	r, fakes := fakeRunner(map[string][]runtime.Object{"tenant-a": {pluginDaemonSet()}})
	r.tm.Case, r.tm.Cleanup, r.tm.Bind = 10*time.Second, time.Second, time.Second
	b := &shareCard{place: *pickHardware(r.cfg.Lab).Share}
	f := fakes[b.tenant()]
	node := registeredNode("gpu-lab-"+b.tenant()+"-"+b.place.Worker.Name, gpus.Devices(r.cfg.Lab, b.tenant(), b.place.Worker))
	if _, err := f.CoreV1().Nodes().Create(context.Background(), &node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		p := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		lim := p.Spec.Containers[0].Resources.Limits
		mem, cores := lim[corev1.ResourceName(gpus.ResourceGPUMem)], lim[corev1.ResourceName(gpus.ResourceGPUCores)]
		p.Spec.NodeName, p.Status.Phase = node.Name, corev1.PodRunning
		p.Annotations[gpus.AnnoDevicesAllocated] = gpus.PodDevices{{{UUID: p.Annotations[gpus.AnnoUseGPUUUID], Type: gpus.DeviceVendor,
			MemoryMB: int(mem.Value()), Cores: int(cores.Value())}}}.Encode()
		return false, nil, nil
	})
	// client-go's fake serves a pod's log from a reactor's *runtime.Unknown.
	f.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "log" {
			return false, nil, nil
		}
		return true, &runtime.Unknown{Raw: []byte(log)}, nil
	})
	c := &caseRun{Case: caseByID("TC-18"), tenants: []string{b.tenant()},
		run: func(ctx context.Context, t *caseT) error { return b.tc18(ctx, t) }}
	res := results.Case{ID: c.ID, Tenants: c.tenants, Started: time.Now()}
	r.runCase(context.Background(), c, &lane{}, &res)
	return res
}

// envLog is what `env` of envDumpCommand prints with the given variables
// beside a shell's own, then the end line: input for the fake, not a
// recording (a real lab's run keeps one: containerEnvFile).
func envLog(vars map[string]string) string {
	lines := []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOSTNAME=tc18-env-1"}
	for k, v := range vars {
		lines = append(lines, k+"="+v)
	}
	return strings.Join(lines, "\n") + "\n" + envDumpEnd + "\n"
}

// TC-18 keeps the container log it read, verbatim, in its diagnostics
// whether it passes or fails, and the reports write it where its step
// says: diagnostics/TC-18/container-env.log. A failure's collected
// diagnostics come beside it, not in its place.
func TestTC18KeepsTheContainerLog(t *testing.T) {
	uuid := gpus.Devices(lab.Default(), "tenant-a", lab.Default().Tenants[0].Workers[0])[0].ID
	good := allocateEnv{memMB: 20000, cores: 30, uuid: uuid}.want()
	bad := maps.Clone(good)
	bad[envCoreLimit] = "100"
	for _, tc := range []struct {
		name   string
		vars   map[string]string
		status results.Status
		msg    string
	}{
		{"as HAMi's Allocate sets it", good, results.Passed, ""},
		{"a core limit not asked for", bad, results.Failed, `CUDA_DEVICE_SM_LIMIT="100", want "30"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := envLog(tc.vars)
			res := runTC18(t, log)
			if res.Status != tc.status || !strings.Contains(res.Message, tc.msg) {
				t.Fatalf("TC-18 %s: %q, want %s containing %q", res.Status, res.Message, tc.status, tc.msg)
			}
			if got := res.Diagnostics[containerEnvFile]; got != log {
				t.Errorf("diagnostics %s = %q, want the log verbatim: %q", containerEnvFile, got, log)
			}
			if _, collected := res.Diagnostics["nodes.txt"]; collected != (tc.status == results.Failed) {
				t.Errorf("diagnostics %v: a failure's collected files must come beside the kept log, a pass's not at all",
					slices.Sorted(maps.Keys(res.Diagnostics)))
			}
			path := filepath.ToSlash(filepath.Join(report.DiagnosticsDir, "TC-18", containerEnvFile))
			var said bool
			for _, s := range res.Steps {
				said = said || strings.Contains(s.Message, "verbatim as "+path)
			}
			if !said || !strings.Contains(caseByID("TC-18").Asserts, path) {
				t.Errorf("the steps %v and the catalog's asserts must name %s", res.Steps, path)
			}
			dir := t.TempDir()
			if err := report.WriteAll(dir, &results.Run{Schema: results.SchemaVersion, Cases: []results.Case{res}}); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path))); err != nil || string(b) != log {
				t.Errorf("the reports' %s = %q (%v), want the log verbatim", path, b, err)
			}
		})
	}
}
