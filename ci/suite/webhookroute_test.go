package suite

import (
	"context"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// The objects of a tenant whose only worker was just restarted, shaped as
// HAMi's chart 2.10.0 and Kamaji 26.8.2-edge create them.
func routeObjects(svcType corev1.ServiceType) []runtime.Object {
	worker, notReady := "gpu-lab-tenant-a-worker", false
	return []runtime.Object{
		&admissionregistrationv1.MutatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "hami-webhook"},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{
				Name: gpus.WebhookName,
				ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "kube-system",
					Name: "hami-scheduler"}},
			}},
		},
		&corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "hami-scheduler"},
			Spec:       corev1.ServiceSpec{Type: svcType, ExternalName: "127.0.0.2"},
		},
		&discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "hami-scheduler-x7",
				Labels: map[string]string{discoveryv1.LabelServiceName: "hami-scheduler"}},
			Endpoints: []discoveryv1.Endpoint{{
				Addresses:  []string{"10.100.0.7"},
				NodeName:   &worker,
				Conditions: discoveryv1.EndpointConditions{Ready: &notReady},
				TargetRef:  &corev1.ObjectReference{Kind: "Pod", Name: "hami-scheduler-5d9c"},
			}},
		},
		&corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "konnectivity-agent-q2x",
				Labels: map[string]string{"k8s-app": render.KonnectivityAgentName}},
			Spec: corev1.PodSpec{NodeName: worker},
			Status: corev1.PodStatus{Phase: corev1.PodRunning,
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}},
		},
		&corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: worker},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown", Message: "Kubelet stopped posting node status.",
			}}},
		},
	}
}

func TestWebhookRoute(t *testing.T) {
	for _, c := range []struct {
		name    string
		objs    []runtime.Object
		want    []string
		notWant []string
	}{
		{
			name: "a restarted worker: the webhook's endpoint, the agent and the node's condition are named",
			objs: routeObjects(corev1.ServiceTypeClusterIP),
			want: []string{
				"webhook vgpu.hami.io → Service kube-system/hami-scheduler served by pod hami-scheduler-5d9c on node " +
					"gpu-lab-tenant-a-worker (not ready)",
				"Konnectivity agents konnectivity-agent-q2x on node gpu-lab-tenant-a-worker (Running, Ready=False)",
				"node gpu-lab-tenant-a-worker Ready=Unknown NodeStatusUnknown: Kubelet stopped posting node status.",
			},
		},
		{
			name: "an ExternalName Service (the local test environment) names its target, not endpoints",
			objs: routeObjects(corev1.ServiceTypeExternalName)[:2],
			want: []string{"Service kube-system/hami-scheduler (ExternalName 127.0.0.2)",
				"no Konnectivity agent pods (k8s-app=konnectivity-agent in kube-system)"},
			notWant: []string{"node "},
		},
		{
			name: "no endpoints at all",
			objs: routeObjects(corev1.ServiceTypeClusterIP)[:2],
			want: []string{"Service kube-system/hami-scheduler has no endpoints"},
		},
		{
			name: "no webhook installed",
			objs: routeObjects(corev1.ServiceTypeClusterIP)[3:],
			want: []string{"no MutatingWebhookConfiguration holds webhook vgpu.hami.io",
				"Konnectivity agents konnectivity-agent-q2x on node gpu-lab-tenant-a-worker"},
		},
		{
			name: "the webhook's Service is gone",
			objs: append(routeObjects(corev1.ServiceTypeClusterIP)[:1], routeObjects(corev1.ServiceTypeClusterIP)[2:]...),
			want: []string{"webhook vgpu.hami.io → Service kube-system/hami-scheduler: ", "not found"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := webhookRoute(context.Background(), fake.NewSimpleClientset(c.objs...)) //nolint:staticcheck
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("route %q\nlacks %q", got, w)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(got, w) {
					t.Errorf("route %q\nhas %q", got, w)
				}
			}
		})
	}
}
