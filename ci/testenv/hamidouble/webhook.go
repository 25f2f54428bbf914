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
	var pod corev1.Pod
	var resp struct {
		allowed bool
		message string
		patch   []byte
	}
	resp.allowed = true
	if err := json.Unmarshal(req.Object, &pod); err != nil {
		resp.allowed, resp.message = false, "decode pod: "+err.Error()
	} else if pod.Namespace == "" {
		pod.Namespace = req.Namespace
	}
	if resp.allowed && !d.currentFaults().NoMutation {
		m := mutate(&pod, mutateOptions{SchedulerName: d.cfg.SchedulerName, DefaultGPUNum: d.cfg.DefaultGPUNum, ForceOverwriteDefaultScheduler: *d.cfg.ForceOverwriteDefaultScheduler})
		if m.Denied != "" {
			resp.allowed, resp.message = false, m.Denied
		} else if resp.patch, err = marshalPatch(m.Patch); err != nil {
			resp.allowed, resp.message = false, err.Error()
		}
	}
	name := pod.Name
	if name == "" {
		name = pod.GenerateName + "<generated>"
	}
	d.log.Debug(Banner+": webhook", "pod", pod.Namespace+"/"+name, "allowed", resp.allowed, "message", resp.message, "patch", string(resp.patch))

	var out any
	switch review.APIVersion {
	case admissionv1.SchemeGroupVersion.String():
		rv := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: resp.allowed}
		if resp.message != "" {
			rv.Result = &metav1.Status{Status: metav1.StatusFailure, Message: resp.message, Code: http.StatusForbidden}
		}
		if resp.patch != nil {
			pt := admissionv1.PatchTypeJSONPatch
			rv.Patch, rv.PatchType = resp.patch, &pt
		}
		out = admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: rv}
	case admissionv1beta1.SchemeGroupVersion.String():
		rv := &admissionv1beta1.AdmissionResponse{UID: req.UID, Allowed: resp.allowed}
		if resp.message != "" {
			rv.Result = &metav1.Status{Status: metav1.StatusFailure, Message: resp.message, Code: http.StatusForbidden}
		}
		if resp.patch != nil {
			pt := admissionv1beta1.PatchTypeJSONPatch
			rv.Patch, rv.PatchType = resp.patch, &pt
		}
		out = admissionv1beta1.AdmissionReview{TypeMeta: review.TypeMeta, Response: rv}
	default:
		http.Error(w, fmt.Sprintf("%s: AdmissionReview apiVersion %q: want %s or %s", Banner, review.APIVersion,
			admissionv1.SchemeGroupVersion, admissionv1beta1.SchemeGroupVersion), http.StatusBadRequest)
		return
	}
	writeJSON(w, out)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
