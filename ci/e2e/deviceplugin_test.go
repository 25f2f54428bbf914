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

// TC-20 is about HAMi's device plugin, which the local environment cannot
// run (no kubelet): there it is skipped with this reason, a substring of
// the suite's.
const noPluginHere = "no tenant runs HAMi's device plugin"

// skippedWithoutPlugin tells whether c is TC-20 skipped for want of the
// plugin, as it is in the local environment.
func skippedWithoutPlugin(c results.Case) bool {
	return c.ID == "TC-20" && c.Status == results.Skipped && strings.Contains(c.Message, noPluginHere)
}

// claimDevicePlugin breaks TC-20's premise in the local environment: every
// tenant gets a DaemonSet named as HAMi's device plugin (on no node: its
// selector matches none), while gpu-lab's registrar still writes the
// Nodes' GPU resources, nvidia.com/gpumem among them, which the real plugin
// never registers. The case then runs and must fail.
func claimDevicePlugin(t *testing.T, e *testenv.Env, _ *suite.Config) {
	t.Helper()
	ctx := context.Background()
	for _, tn := range e.Tenants() {
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
