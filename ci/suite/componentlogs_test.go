package suite

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gpu-lab/gpu-lab/ci/render"
	"github.com/gpu-lab/gpu-lab/ci/results"
)

// labelledDaemonSet is a kube-system DaemonSet selecting app=name, with one
// pod of it on node carrying the given init containers and containers.
func labelledDaemonSet(name, node string, init, containers []string) []runtime.Object {
	labels := map[string]string{"app": name}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}}}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name + "-x7k2p", Namespace: "kube-system", Labels: labels},
		Spec: corev1.PodSpec{NodeName: node}}
	for _, c := range init {
		p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: c})
	}
	for _, c := range containers {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c})
	}
	return []runtime.Object{ds, p}
}

// A failed case keeps the logs of HAMi's device plugin pods and of the mock
// NVML library's pods, the init container that installs the library
// included, under headers naming tenant, pod, node and container; pods of
// no such DaemonSet are left out, and a platform without either DaemonSet
// (the local test environment) gets no file.
func TestFailedCaseKeepsGPUComponentLogs(t *testing.T) {
	node := "gpu-lab-tenant-a-worker"
	objs := labelledDaemonSet(devicePluginDaemonSet, node, nil, []string{"device-plugin", "vgpu-monitor"})
	objs = append(objs, labelledDaemonSet(render.NVMLMockName, node, []string{"install"}, []string{"idle"})...)
	objs = append(objs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "coredns-5d78c9869d-abcde", Namespace: "kube-system"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "coredns"}}}})
	fail := func(context.Context, *caseT) error { return errors.New("broken") }

	r, _ := fakeRunner(map[string][]runtime.Object{"tenant-a": objs})
	r.tm.Case, r.tm.Cleanup = 10*time.Second, time.Second
	res := results.Case{ID: "TC-20", Tenants: r.cfg.Lab.TenantNames(), Started: time.Now()}
	r.runCase(context.Background(), &caseRun{Case: caseByID("TC-20"), tenants: r.cfg.Lab.TenantNames(), run: fail}, &lane{}, &res)
	logs := res.Diagnostics[componentLogsFile]
	for _, want := range []string{
		"# tenant tenant-a, pod kube-system/hami-device-plugin-x7k2p on node " + node + ", container device-plugin (last 200 lines)\n",
		"# tenant tenant-a, pod kube-system/hami-device-plugin-x7k2p on node " + node + ", container vgpu-monitor (last 200 lines)\n",
		"# tenant tenant-a, pod kube-system/" + render.NVMLMockName + "-x7k2p on node " + node + ", init container install (last 200 lines)\n",
		"# tenant tenant-a, pod kube-system/" + render.NVMLMockName + "-x7k2p on node " + node + ", container idle (last 200 lines)\n",
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("%s lacks %q:\n%s", componentLogsFile, want, logs)
		}
	}
	if strings.Contains(logs, "coredns") || strings.Contains(logs, "tenant tenant-b") {
		t.Errorf("%s holds a pod of neither DaemonSet, or a tenant that runs neither:\n%s", componentLogsFile, logs)
	}

	r, _ = fakeRunner(nil)
	r.tm.Case, r.tm.Cleanup = 10*time.Second, time.Second
	res = results.Case{ID: "TC-20", Tenants: r.cfg.Lab.TenantNames(), Started: time.Now()}
	r.runCase(context.Background(), &caseRun{Case: caseByID("TC-20"), tenants: r.cfg.Lab.TenantNames(), run: fail}, &lane{}, &res)
	if logs, ok := res.Diagnostics[componentLogsFile]; ok {
		t.Errorf("no DaemonSet anywhere, yet %s:\n%s", componentLogsFile, logs)
	}
}
