package e2e

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gpu-lab/gpu-lab/ci/results"
	"github.com/gpu-lab/gpu-lab/ci/suite"
	"github.com/gpu-lab/gpu-lab/ci/testenv"
)

// TC-18 and TC-20 are about HAMi's device plugin, which the local
// environment cannot run (no kubelet): there they are skipped with these
// reasons, substrings of the suite's. TC-19 is not: what it checks of the
// plugin (the bind phase and the lock's release) gpu-lab's bind finalizer
// does in its place.
var noPluginHere = map[string]string{
	"TC-18": "does not run HAMi's device plugin",
	"TC-20": "no tenant runs HAMi's device plugin",
}

// skippedWithoutPlugin tells whether c is TC-18 or TC-20 skipped for want
// of the plugin, as they are in the local environment.
func skippedWithoutPlugin(c results.Case) bool {
	why, ok := noPluginHere[c.ID]
	return ok && c.Status == results.Skipped && strings.Contains(c.Message, why)
}

// claimDevicePlugin breaks TC-20's premise in the local environment: every
// tenant gets a DaemonSet named as HAMi's device plugin (on no node: its
// selector matches none), while gpu-lab's registrar still writes the
// Nodes' GPU resources, nvidia.com/gpumem among them, which the real plugin
// never registers. The case then runs and must fail.
func claimDevicePlugin(t *testing.T, e *testenv.Env, _ *suite.Config) {
	t.Helper()
	claimDevicePluginIn(t, e, e.Tenants()...)
}

// claimDevicePluginIn creates that DaemonSet in the given tenants only.
// TC-18 then runs on tenant-a's card: its pod is bound and Running (KWOK)
// but has no container, so its log never shows HAMi's environment.
func claimDevicePluginIn(t *testing.T, e *testenv.Env, tenants ...string) {
	t.Helper()
	ctx := context.Background()
	for _, tn := range tenants {
		kc, err := kubernetes.NewForConfig(e.RESTConfig(tn))
		if err != nil {
			t.Fatal(err)
		}
		labels := map[string]string{"app.kubernetes.io/component": "hami-device-plugin"}
		ds := &appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Name: "hami-device-plugin", Namespace: "kube-system"},
			Spec: appsv1.DaemonSetSpec{
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{
						NodeSelector: map[string]string{"gpu-lab.dev/no-such-node": "true"},
						Containers:   []corev1.Container{{Name: "device-plugin", Image: suite.DefaultImage}},
					},
				},
			},
		}
		if _, err := kc.AppsV1().DaemonSets("kube-system").Create(ctx, ds, metav1.CreateOptions{}); err != nil {
			t.Fatalf("tenant %s: create DaemonSet kube-system/hami-device-plugin: %v", tn, err)
		}
		t.Cleanup(func() {
			if err := kc.AppsV1().DaemonSets("kube-system").Delete(context.Background(), "hami-device-plugin", metav1.DeleteOptions{}); err != nil {
				t.Errorf("tenant %s: delete DaemonSet kube-system/hami-device-plugin: %v", tn, err)
			}
		})
	}
}
