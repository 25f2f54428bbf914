package testenv

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// checkGPUPodMutatedThroughKonnectivityAndBound: a GPU pod created in
// tenant-a is mutated by HAMi's webhook, and the call went API server →
// konnectivity server → agent → relay → HAMi: the relay (reachable only
// through the ExternalName Service's address) carried the request, and
// every connection it ever accepted was dialled by the agent. The pod then
// binds through the scheduler extender and the product bind finalizer
// finishes it.
func checkGPUPodMutatedThroughKonnectivityAndBound(t *testing.T, e *Env) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const tenant = "tenant-a"
	c := client(t, e, tenant)

	before, err := e.Tunnel(ctx, tenant)
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu-through-tunnel", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "cuda", Image: "nvidia/cuda",
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{
				gpus.ResourceGPU:      resource.MustParse("1"),
				gpus.ResourceGPUMem:   resource.MustParse("20000"),
				gpus.ResourceGPUCores: resource.MustParse("30"),
			}},
		}}},
	}
	created, err := c.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.CoreV1().Pods("default").Delete(context.Background(), pod.Name, *metav1.NewDeleteOptions(0))
	})
	if created.Spec.SchedulerName != gpus.SchedulerName {
		t.Fatalf("pod schedulerName = %q, want %q (not mutated by the webhook)", created.Spec.SchedulerName, gpus.SchedulerName)
	}
	after, err := e.Tunnel(ctx, tenant)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tunnel before %+v, after %+v", before, after)
	if after.WebhookBytes <= before.WebhookBytes {
		t.Errorf("webhook relay %s received nothing (%d → %d bytes)", after.WebhookAddress, before.WebhookBytes, after.WebhookBytes)
	}
	if !after.throughAgent() {
		t.Errorf("webhook listener accepted %d connection(s) but the konnectivity server forwarded %d and the agent opened %d dial(s): a call "+
			"bypassed the tunnel",
			after.WebhookConnections, after.ServerDials, after.AgentDials)
	}

	var got *corev1.Pod
	err = wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		got, err = c.CoreV1().Pods("default").Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return got.Status.Phase == corev1.PodRunning && got.Annotations[gpus.AnnoBindPhase] == gpus.BindPhaseSuccess, nil
	})
	if err != nil {
		t.Fatalf("pod not Running with bind-phase success: %v; pod: node=%q phase=%s annotations=%v", err, got.Spec.NodeName, got.Status.Phase,
			got.Annotations)
	}
	if want := nodeName(tenant, "worker"); got.Spec.NodeName != want {
		t.Errorf("pod bound to %q, want %q", got.Spec.NodeName, want)
	}
	if v := got.Annotations[gpus.AnnoDevicesToAlloc]; v != gpus.Erased(1) {
		t.Errorf("%s = %q, want erased %q", gpus.AnnoDevicesToAlloc, v, gpus.Erased(1))
	}
	devs, err := gpus.DecodePodDevices(got.Annotations[gpus.AnnoDevicesAllocated])
	if err != nil || len(devs.All()) != 1 || devs.All()[0].MemoryMB != 20000 || devs.All()[0].Cores != 30 {
		t.Errorf("%s = %q (%v), want one 20000 MB / 30%% grant", gpus.AnnoDevicesAllocated, got.Annotations[gpus.AnnoDevicesAllocated], err)
	}
}
