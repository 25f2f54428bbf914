package kube

import (
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TCPReady reads a TenantControlPlane's readiness from
// status.kubernetesResources.version.status (Kamaji 26.8.2-edge
// api/v1alpha1/tenantcontrolplane_status.go:191,218, enum at :198), the field
// Kamaji's e2e waits on (e2e/utils_test.go:127); the condition names the status, the installed
// version and the endpoint, so a stuck tenant says where it is stuck.
func TCPReady(tcp *unstructured.Unstructured) (bool, string) {
	if tcp == nil {
		return false, "not created"
	}
	status, _, _ := unstructured.NestedString(tcp.Object, "status", "kubernetesResources", "version", "status")
	version, _, _ := unstructured.NestedString(tcp.Object, "status", "kubernetesResources", "version", "version")
	endpoint, _, _ := unstructured.NestedString(tcp.Object, "status", "controlPlaneEndpoint")
	if status == "" {
		return false, "no status yet (is the Kamaji controller running?)"
	}
	cond := "status " + status
	if version != "" {
		cond += ", version " + version
	}
	if endpoint != "" {
		cond += ", endpoint " + endpoint
	}
	return status == "Ready", cond
}

// TCPAdminSecret is the name of the tenant's admin kubeconfig secret.
func TCPAdminSecret(tcp *unstructured.Unstructured) string {
	if tcp != nil {
		if s, _, _ := unstructured.NestedString(tcp.Object, "status", "kubeconfig", "admin", "secretName"); s != "" {
			return s
		}
		return tcp.GetName() + "-admin-kubeconfig"
	}
	return ""
}

// DeploymentReady: the current generation is rolled out and every replica
// is available.
func DeploymentReady(d *appsv1.Deployment) (bool, string) {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	cond := fmt.Sprintf("%d/%d available, %d updated", d.Status.AvailableReplicas, want, d.Status.UpdatedReplicas)
	if d.Status.ObservedGeneration < d.Generation {
		return false, cond + " (rollout not observed yet)"
	}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse {
			return false, cond + ": " + c.Reason + ": " + c.Message
		}
	}
	return want > 0 && d.Status.AvailableReplicas >= want && d.Status.UpdatedReplicas >= want, cond
}

// StatefulSetReady: every replica ready.
func StatefulSetReady(s *appsv1.StatefulSet) (bool, string) {
	want := int32(1)
	if s.Spec.Replicas != nil {
		want = *s.Spec.Replicas
	}
	return want > 0 && s.Status.ReadyReplicas >= want, fmt.Sprintf("%d/%d ready", s.Status.ReadyReplicas, want)
}

// DaemonSetReady: scheduled somewhere and ready everywhere it is scheduled.
// A DaemonSet scheduled nowhere is not ready: for HAMi's device plugin that
// means no node carries gpu=on.
func DaemonSetReady(ds *appsv1.DaemonSet) (bool, string) {
	s := ds.Status
	cond := fmt.Sprintf("%d/%d ready", s.NumberReady, s.DesiredNumberScheduled)
	if s.DesiredNumberScheduled == 0 {
		return false, cond + " (scheduled on no node: check its node selector)"
	}
	if s.ObservedGeneration < ds.Generation {
		return false, cond + " (rollout not observed yet)"
	}
	return s.NumberReady >= s.DesiredNumberScheduled && s.UpdatedNumberScheduled >= s.DesiredNumberScheduled, cond
}

// PodReady reads a pod's Ready condition and its phase: ready only when
// the condition is True and the pod is not being deleted (a terminating
// pod keeps Ready=True until its containers stop).
func PodReady(p *corev1.Pod) (bool, string) {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			cond := fmt.Sprintf("%s, Ready=%s", p.Status.Phase, c.Status)
			if p.DeletionTimestamp != nil {
				return false, cond + ", terminating"
			}
			return c.Status == corev1.ConditionTrue, cond
		}
	}
	return false, fmt.Sprintf("%s, no Ready condition", p.Status.Phase)
}

// NodeReady reads the Ready condition.
func NodeReady(n *corev1.Node) (bool, string) {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			cond := "Ready=" + string(c.Status)
			if c.Reason != "" {
				cond += " " + c.Reason
			}
			if c.Status != corev1.ConditionTrue && c.Message != "" {
				cond += ": " + c.Message
			}
			return c.Status == corev1.ConditionTrue, cond
		}
	}
	return false, "no Ready condition yet"
}

// WebhookReady: every webhook of the configuration has a CA bundle (HAMi's
// certgen patch job fills it); without one the API server cannot call it
// and, with failurePolicy Ignore, silently skips the mutation.
func WebhookReady(w *admissionregistrationv1.MutatingWebhookConfiguration) (bool, string) {
	if len(w.Webhooks) == 0 {
		return false, "no webhooks"
	}
	for _, h := range w.Webhooks {
		if len(h.ClientConfig.CABundle) == 0 {
			return false, "webhook " + h.Name + " has no caBundle yet (certgen patch job pending)"
		}
	}
	return true, fmt.Sprintf("%d webhook(s) with caBundle", len(w.Webhooks))
}
