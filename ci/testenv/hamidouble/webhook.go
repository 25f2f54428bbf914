package hamidouble

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// serveWebhook answers an AdmissionReview in the version it was sent in
// (HAMi's chart registers admission.k8s.io/v1beta1; v1 is accepted too).
func (d *double) serveWebhook(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		http.Error(w, Banner+": read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	var review struct {
		metav1.TypeMeta `json:",inline"`
		Request         *struct {
			UID       types.UID       `json:"uid"`
			Namespace string          `json:"namespace"`
			Object    json.RawMessage `json:"object"`
		} `json:"request"`
	}
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		http.Error(w, fmt.Sprintf("%s: body is not an AdmissionReview with a request (%v)", Banner, err), http.StatusBadRequest)
		return
	}
	req := review.Request
	pod, resp := d.admit(req.Object, req.Namespace)
	name := pod.Name
	if name == "" {
		name = pod.GenerateName + "<generated>"
	}
	d.log.Debug(Banner+": webhook", "pod", pod.Namespace+"/"+name, "allowed", resp.allowed, "message", resp.message,
		"patch", string(resp.patch))

	out, ok := reviewResponse(review.TypeMeta, req.UID, resp)
	if !ok {
		http.Error(w, fmt.Sprintf("%s: AdmissionReview apiVersion %q: want %s or %s", Banner, review.APIVersion,
			admissionv1.SchemeGroupVersion, admissionv1beta1.SchemeGroupVersion), http.StatusBadRequest)
		return
	}
	writeJSON(w, out)
}

// admission is the webhook's answer for one pod, whatever the review's
// version.
type admission struct {
	allowed bool
	message string
	patch   []byte
}

// admit decodes the review's pod (into the review's namespace when it
// names none) and, unless Faults.NoMutation, mutates it as HAMi's webhook
// does: denied, or allowed with a JSON patch.
func (d *double) admit(object json.RawMessage, namespace string) (corev1.Pod, admission) {
	var pod corev1.Pod
	var resp admission
	resp.allowed = true
	if err := json.Unmarshal(object, &pod); err != nil {
		resp.allowed, resp.message = false, "decode pod: "+err.Error()
	} else if pod.Namespace == "" {
		pod.Namespace = namespace
	}
	if resp.allowed && !d.currentFaults().NoMutation {
		m := mutate(&pod, mutateOptions{SchedulerName: d.cfg.SchedulerName, DefaultGPUNum: d.cfg.DefaultGPUNum,
			ForceOverwriteDefaultScheduler: *d.cfg.ForceOverwriteDefaultScheduler})
		var err error
		if m.Denied != "" {
			resp.allowed, resp.message = false, m.Denied
		} else if resp.patch, err = marshalPatch(m.Patch); err != nil {
			resp.allowed, resp.message = false, err.Error()
		}
	}
	return pod, resp
}

// reviewResponse is the AdmissionReview answering with resp in the
// review's version (typ); ok is false for a version the webhook does not
// speak.
func reviewResponse(typ metav1.TypeMeta, uid types.UID, resp admission) (out any, ok bool) {
	switch typ.APIVersion {
	case admissionv1.SchemeGroupVersion.String():
		rv := &admissionv1.AdmissionResponse{UID: uid, Allowed: resp.allowed}
		if resp.message != "" {
			rv.Result = &metav1.Status{Status: metav1.StatusFailure, Message: resp.message, Code: http.StatusForbidden}
		}
		if resp.patch != nil {
			pt := admissionv1.PatchTypeJSONPatch
			rv.Patch, rv.PatchType = resp.patch, &pt
		}
		return admissionv1.AdmissionReview{TypeMeta: typ, Response: rv}, true
	case admissionv1beta1.SchemeGroupVersion.String():
		rv := &admissionv1beta1.AdmissionResponse{UID: uid, Allowed: resp.allowed}
		if resp.message != "" {
			rv.Result = &metav1.Status{Status: metav1.StatusFailure, Message: resp.message, Code: http.StatusForbidden}
		}
		if resp.patch != nil {
			pt := admissionv1beta1.PatchTypeJSONPatch
			rv.Patch, rv.PatchType = resp.patch, &pt
		}
		return admissionv1beta1.AdmissionReview{TypeMeta: typ, Response: rv}, true
	}
	return nil, false
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
