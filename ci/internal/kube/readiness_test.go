package kube

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func tcpWith(status map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kamaji.clastix.io/v1alpha1", "kind": "TenantControlPlane",
		"metadata": map[string]any{"name": "tenant-a", "namespace": "tenant-a"}}}
	if status != nil {
		u.Object["status"] = status
	}
	return u
}

func TestTCPReady(t *testing.T) {
	tests := []struct {
		name    string
		tcp     *unstructured.Unstructured
		ok      bool
		condHas string
	}{
		{"nil", nil, false, "not created"},
		{"no status", tcpWith(nil), false, "Kamaji controller"},
		{"provisioning", tcpWith(map[string]any{"kubernetesResources": map[string]any{"version": map[string]any{"status": "Provisioning"}}}),
			false, "status Provisioning"},
		{"ready", tcpWith(map[string]any{"controlPlaneEndpoint": "172.18.0.2:31443",
			"kubernetesResources": map[string]any{"version": map[string]any{"status": "Ready", "version": "v1.36.4"}}}), true,
			"status Ready, version v1.36.4, endpoint 172.18.0.2:31443"},
		{"not ready after upgrade",
			tcpWith(map[string]any{"kubernetesResources": map[string]any{"version": map[string]any{"status": "NotReady"}}}), false, "NotReady"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, cond := TCPReady(tt.tcp)
			if ok != tt.ok || !strings.Contains(cond, tt.condHas) {
				t.Fatalf("TCPReady = %v, %q; want %v, containing %q", ok, cond, tt.ok, tt.condHas)
			}
		})
	}
	if got := TCPAdminSecret(tcpWith(nil)); got != "tenant-a-admin-kubeconfig" {
		t.Errorf("default admin secret = %s", got)
	}
	if got := TCPAdminSecret(tcpWith(map[string]any{"kubeconfig": map[string]any{"admin": map[string]any{"secretName": "x"}}})); got != "x" {
		t.Errorf("status admin secret = %s", got)
	}
}

func i32(v int32) *int32 { return &v }

func TestDeploymentReady(t *testing.T) {
	mk := func(gen, observed int64, replicas *int32, avail, updated int32, conds ...appsv1.DeploymentCondition) *appsv1.Deployment {
		d := &appsv1.Deployment{}
		d.Generation, d.Status.ObservedGeneration = gen, observed
		d.Spec.Replicas = replicas
		d.Status.AvailableReplicas, d.Status.UpdatedReplicas = avail, updated
		d.Status.Conditions = conds
		return d
	}
	tests := []struct {
		name string
		d    *appsv1.Deployment
		ok   bool
	}{
		{"available", mk(2, 2, i32(1), 1, 1), true},
		{"default replicas", mk(1, 1, nil, 1, 1), true},
		{"not observed", mk(3, 2, i32(1), 1, 1), false},
		{"unavailable", mk(1, 1, i32(1), 0, 1), false},
		{"old replica set still serving", mk(1, 1, i32(1), 1, 0), false},
		{"progress deadline exceeded",
			mk(1, 1, i32(1), 1, 1, appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse,
				Reason: "ProgressDeadlineExceeded"}), false},
		{"scaled to zero is not ready", mk(1, 1, i32(0), 0, 0), false},
	}
	for _, tt := range tests {
		if ok, cond := DeploymentReady(tt.d); ok != tt.ok || cond == "" {
			t.Errorf("%s: DeploymentReady = %v, %q; want %v", tt.name, ok, cond, tt.ok)
		}
	}
}

func TestDaemonSetAndStatefulSetReady(t *testing.T) {
	ds := func(desired, ready, updated int32, gen, observed int64) *appsv1.DaemonSet {
		d := &appsv1.DaemonSet{}
		d.Generation, d.Status.ObservedGeneration = gen, observed
		d.Status.DesiredNumberScheduled, d.Status.NumberReady, d.Status.UpdatedNumberScheduled = desired, ready, updated
		return d
	}
	tests := []struct {
		name    string
		d       *appsv1.DaemonSet
		ok      bool
		condHas string
	}{
		{"ready", ds(1, 1, 1, 1, 1), true, "1/1"},
		{"scheduled nowhere (no gpu=on node)", ds(0, 0, 0, 1, 1), false, "node selector"},
		{"pod not ready", ds(1, 0, 1, 1, 1), false, "0/1"},
		{"not observed", ds(1, 1, 1, 2, 1), false, "not observed"},
	}
	for _, tt := range tests {
		if ok, cond := DaemonSetReady(tt.d); ok != tt.ok || !strings.Contains(cond, tt.condHas) {
			t.Errorf("%s: DaemonSetReady = %v, %q", tt.name, ok, cond)
		}
	}
	s := &appsv1.StatefulSet{}
	s.Spec.Replicas = i32(3)
	s.Status.ReadyReplicas = 2
	if ok, cond := StatefulSetReady(s); ok || cond != "2/3 ready" {
		t.Errorf("StatefulSetReady = %v, %q", ok, cond)
	}
	s.Status.ReadyReplicas = 3
	if ok, _ := StatefulSetReady(s); !ok {
		t.Error("3/3 not ready")
	}
}

func TestNodeAndWebhookReady(t *testing.T) {
	n := &corev1.Node{}
	if ok, cond := NodeReady(n); ok || cond != "no Ready condition yet" {
		t.Errorf("fresh node: %v %q", ok, cond)
	}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletNotReady",
		Message: "cni plugin not initialized"}}
	if ok, cond := NodeReady(n); ok || !strings.Contains(cond, "cni plugin not initialized") {
		t.Errorf("no CNI: %v %q", ok, cond)
	}
	n.Status.Conditions[0].Status = corev1.ConditionTrue
	if ok, _ := NodeReady(n); !ok {
		t.Error("Ready=True not ready")
	}

	w := &admissionregistrationv1.MutatingWebhookConfiguration{}
	if ok, _ := WebhookReady(w); ok {
		t.Error("no webhooks: ready")
	}
	w.Webhooks = []admissionregistrationv1.MutatingWebhook{{Name: "vgpu.hami.io"}}
	if ok, cond := WebhookReady(w); ok || !strings.Contains(cond, "caBundle") {
		t.Errorf("no caBundle: %v %q", ok, cond)
	}
	w.Webhooks[0].ClientConfig.CABundle = []byte("pem")
	if ok, _ := WebhookReady(w); !ok {
		t.Error("with caBundle: not ready")
	}
}

func TestPodReady(t *testing.T) {
	now := metav1.Now()
	for _, tc := range []struct {
		name      string
		pod       corev1.Pod
		wantReady bool
		wantCond  string
	}{
		{"no condition", corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending}}, false, "Pending, no Ready condition"},
		{"ready", corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}, true, "Running, Ready=True"},
		{"not ready", corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
			{Type: corev1.ContainersReady, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionFalse}}}}, false,
			"Running, Ready=False"},
		{"terminating", corev1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &now}, Status: corev1.PodStatus{Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}, false, "Running, Ready=True, terminating"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ready, cond := PodReady(&tc.pod)
			if ready != tc.wantReady || cond != tc.wantCond {
				t.Errorf("PodReady = %v, %q; want %v, %q", ready, cond, tc.wantReady, tc.wantCond)
			}
		})
	}
}
