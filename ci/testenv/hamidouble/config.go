package hamidouble

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// managedResources are the NVIDIA resources HAMi's chart lists in the
// scheduler extender's managedResources, each ignoredByScheduler: true.
var managedResources = []string{
	gpus.ResourceGPU, gpus.ResourceGPUMem, gpus.ResourceGPUCores, gpus.ResourceGPUMemPercent, gpus.ResourcePriority,
}

// mutatingWebhook returns the webhook configuration HAMi's chart installs
// (chart 2.10.0 templates/scheduler/webhook.yaml: entry vgpu.hami.io at
// :25, CREATE pods, failurePolicy Ignore (values.yaml:210),
// admissionReviewVersions v1beta1 at :11-12, 10 s timeout at :72), pointing at the given
// Service and excluding pods and namespaces labelled hami.io/webhook=ignore
// through objectSelector and namespaceSelector. name is the configuration's
// name (the chart uses "<release>-webhook").
func mutatingWebhook(name string, svc admissionregistrationv1.ServiceReference,
	caBundle []byte) *admissionregistrationv1.MutatingWebhookConfiguration {
	path := "/webhook"
	if svc.Path == nil {
		svc.Path = &path
	}
	ignore := admissionregistrationv1.Ignore
	never := admissionregistrationv1.NeverReinvocationPolicy
	none := admissionregistrationv1.SideEffectClassNone
	timeout := int32(10)
	notIgnored := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: gpus.LabelWebhookIgnore, Operator: metav1.LabelSelectorOpNotIn, Values: []string{gpus.WebhookIgnoreValue},
	}}}
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:         "vgpu.hami.io",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &svc, CABundle: caBundle},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
			}},
			FailurePolicy:           &ignore,
			ReinvocationPolicy:      &never,
			SideEffects:             &none,
			TimeoutSeconds:          &timeout,
			AdmissionReviewVersions: []string{"v1beta1"},
			NamespaceSelector:       notIgnored,
			ObjectSelector:          notIgnored.DeepCopy(),
		}},
	}
}
