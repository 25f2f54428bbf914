package hamidouble

import (
	"encoding/json"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// review sends a pod in an AdmissionReview of the given version and returns
// the raw reply.
func (e *env) review(version string, pod *corev1.Pod) map[string]any {
	e.t.Helper()
	raw, _ := json.Marshal(pod)
	in := map[string]any{
		"apiVersion": version, "kind": "AdmissionReview",
		"request": map[string]any{"uid": "req-1", "operation": "CREATE", "namespace": "ns", "object": runtime.RawExtension{Raw: raw}},
	}
	var out map[string]any
	e.post("/webhook", in, &out)
	return out
}

func TestWebhookVersions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	pod := podWith(limits("nvidia.com/gpumem", "20000", "nvidia.com/gpucores", "30"))
	// The subtests stay serial: they share e, whose helpers report through
	// the parent's t.
	for _, version := range []string{admissionv1beta1.SchemeGroupVersion.String(), admissionv1.SchemeGroupVersion.String()} {
		t.Run(version, func(t *testing.T) {
			out := e.review(version, pod)
			if out["apiVersion"] != version || out["kind"] != "AdmissionReview" {
				t.Fatalf("reply %v/%v, want the request's version %s", out["apiVersion"], out["kind"], version)
			}
			b, _ := json.Marshal(out["response"])
			var resp admissionv1.AdmissionResponse
			if err := json.Unmarshal(b, &resp); err != nil {
				t.Fatal(err)
			}
			if !resp.Allowed || resp.UID != "req-1" || resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
				t.Fatalf("response %+v, want allowed with a JSONPatch for uid req-1", resp)
			}
			var ops []patchOp
			if err := json.Unmarshal(resp.Patch, &ops); err != nil {
				t.Fatal(err)
			}
			m := mutation{Patch: ops}
			lim, sched := applied(t, pod, m)
			if sched != "hami-scheduler" {
				t.Errorf("schedulerName %q, want hami-scheduler", sched)
			}
			if q := lim["nvidia.com/gpu"]; q.Value() != 1 {
				t.Errorf("nvidia.com/gpu = %s, want 1 added", q.String())
			}
		})
	}
}

func TestWebhookDenyAndFault(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	pinned := podWith(limits("nvidia.com/gpu", "1"))
	pinned.Spec.NodeName = "worker-a"
	resp := e.review("admission.k8s.io/v1beta1", pinned)["response"].(map[string]any)
	if resp["allowed"] != false || resp["status"].(map[string]any)["message"] != "pod has node assigned" {
		t.Errorf("pod with nodeName: %v, want denied with \"pod has node assigned\"", resp)
	}

	e.d.setFaults(Faults{NoMutation: true})
	resp = e.review("admission.k8s.io/v1beta1", podWith(limits("nvidia.com/gpumem", "20000")))["response"].(map[string]any)
	if resp["allowed"] != true || resp["patch"] != nil {
		t.Errorf("NoMutation: %v, want allowed without a patch", resp)
	}
}
