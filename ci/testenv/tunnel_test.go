package testenv

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// checkWebhookNeedsTheTunnel holds that the webhook depends on the tunnel:
// with the konnectivity agent gone, the API server cannot reach HAMi and
// (failurePolicy Ignore) admits a GPU pod unmutated, and the webhook relay
// receives no byte more. It needs tenant solo's API server, konnectivity
// server and agent and HAMi, not its kube-scheduler; it kills the agent.
func checkWebhookNeedsTheTunnel(t *testing.T, e *Env) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := client(t, e, "solo")
	gpuPod := func(name string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: "cuda", Image: "nvidia/cuda",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{
					gpus.ResourceGPU: resource.MustParse("1"), gpus.ResourceGPUMem: resource.MustParse("1000"),
				}},
			}}},
		}
	}

	with, err := c.CoreV1().Pods("default").Create(ctx, gpuPod("with-tunnel"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if with.Spec.SchedulerName != gpus.SchedulerName {
		t.Fatalf("with the tunnel up, schedulerName = %q, want %q", with.Spec.SchedulerName, gpus.SchedulerName)
	}
	before, err := e.Tunnel(ctx, "solo")
	if err != nil {
		t.Fatal(err)
	}

	if err := e.breakTunnel("solo"); err != nil {
		t.Fatal(err)
	}
	without, err := c.CoreV1().Pods("default").Create(ctx, gpuPod("without-tunnel"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if without.Spec.SchedulerName == gpus.SchedulerName {
		t.Errorf("with the agent killed the pod was still mutated: the webhook call did not need the tunnel")
	}
	// The agent's metrics died with it; the relay's count is local.
	if got := e.tenant("solo").webhook.bytes.Load(); got != before.WebhookBytes {
		t.Errorf("webhook relay received %d byte(s) with the agent killed", got-before.WebhookBytes)
	}
}
