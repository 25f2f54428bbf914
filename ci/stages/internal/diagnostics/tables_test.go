package diagnostics

import (
	"context"
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/gpu-lab/gpu-lab/ci/render"
)

// A failed bring-up keeps the log of every container of HAMi's pods and of
// the mock NVML library's pods, the nvml-mock init container (the one that
// installs the library) included; other pods' logs are not collected.
func TestComponentLogsIncludeInitContainers(t *testing.T) {
	pod := func(ns, name string, init []string, containers ...string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		for _, c := range init {
			p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: c})
		}
		for _, c := range containers {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c})
		}
		return p
	}
	ns := render.HAMiNamespace
	kube := fake.NewSimpleClientset(
		pod(ns, render.NVMLMockName+"-x7k2p", []string{"install"}, "idle"),
		pod(ns, render.HAMiRelease+"-device-plugin-q9w4z", nil, "device-plugin", "vgpu-monitor"),
		pod(ns, "coredns-5d78c9869d-abcde", nil, "coredns"),
		pod("default", render.HAMiRelease+"-elsewhere", nil, "x"),
	)
	var errs []error
	got := componentLogs(context.Background(), kube, func(err error) { errs = append(errs, err) })
	var names []string
	for k, v := range got {
		names = append(names, k)
		if len(v) == 0 {
			t.Errorf("%s: empty", k)
		}
	}
	slices.Sort(names)
	want := []string{
		render.NVMLMockName + "-x7k2p_idle.log",
		render.NVMLMockName + "-x7k2p_install.log",
		render.HAMiRelease + "-device-plugin-q9w4z_device-plugin.log",
		render.HAMiRelease + "-device-plugin-q9w4z_vgpu-monitor.log",
	}
	slices.Sort(want)
	if !reflect.DeepEqual(names, want) {
		t.Errorf("collected %v, want %v", names, want)
	}
	if len(errs) > 0 {
		t.Errorf("errors: %v", errs)
	}
}
