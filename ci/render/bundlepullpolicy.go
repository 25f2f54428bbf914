package render

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// Why the lab mutates Kamaji's pods when it runs from an image bundle.
//
// Kamaji 26.8.2-edge (clastix/kamaji@ddbabd8) hard-codes imagePullPolicy
// Always on two containers of every tenant control-plane Deployment:
//
//   - kube-apiserver: internal/builders/controlplane/deployment.go:617
//   - konnectivity-server: internal/builders/controlplane/konnectivity_server.go:128
//
// (and kine, deployment.go:1064, which runs only for a kine DataStore; the
// lab's is etcd). kube-scheduler and kube-controller-manager get no policy
// (buildScheduler, buildControllerManager) and are defaulted to
// IfNotPresent for a tagged image (deployment.go:149 Scheme().Default;
// k8s.io/kubernetes@v1.37.0 pkg/apis/core/v1/defaults.go:82
// SetDefaults_Container). Nothing in Kamaji changes the two: the
// TenantControlPlane CRD has imagePullPolicy only inside
// spec.controlPlane.deployment.additionalContainers and
// additionalInitContainers (charts/kamaji/crds/
// kamaji.clastix.io_tenantcontrolplanes.yaml:737 and :2200, plain
// corev1.Container), and the chart's image.pullPolicy (values.yaml:11,
// templates/controller.yaml:54) is the controller's own. With Always the
// kubelet asks the registry on every container start, so an image imported
// from a bundle does not make the tenant control plane air-gapped.
//
// The fix is a MutatingAdmissionPolicy on the management cluster that turns
// Always into IfNotPresent on the pods of tenant control planes, applied
// only when the lab runs from a bundle (`labctl up --images`). It is the
// simplest thing that works offline: it is built into the API server of the
// management node (no webhook server, no registry, no image), and it is
// served and on by default there — kind v0.33.0's node image is Kubernetes
// v1.37.0 (sigs.k8s.io/kind@v0.33.0 pkg/apis/config/defaults/image.go),
// where feature gate MutatingAdmissionPolicy is GA and default true since
// 1.36 (k8s.io/apiserver@v0.37.0 pkg/features/kube_features.go:420-424),
// admissionregistration.k8s.io/v1 is enabled by default
// (k8s.io/kubernetes@v1.37.0 pkg/controlplane/instance.go:462-463) and
// serves mutatingadmissionpolicies and their bindings
// (pkg/registry/admissionregistration/rest/storage_apiserver.go:119-130),
// and the MutatingAdmissionPolicy admission plugin is on by default
// (pkg/kubeapiserver/options/plugins.go:187). The kind config therefore
// needs no feature gate or runtime-config. A registry mirror in the nodes'
// containerd would need a registry image in the bundle, a registry
// container and every image pushed into it; a webhook would need a server.
//
// Pods, not the Deployment, are mutated: Kamaji re-renders its Deployment on
// every reconcile and would undo (and fight) a change there; a Pod is
// created once from the template by the ReplicaSet controller and Kamaji
// never writes it.

// Kamaji's pod labels (deployment.go:1106-1107 templateLabels): every pod of
// a tenant control plane carries both.
const (
	KamajiPodLabelName      = "kamaji.clastix.io/name"
	KamajiPodLabelComponent = "kamaji.clastix.io/component"
	KamajiPodComponent      = "deployment"
)

// BundlePullPolicy is what the policy sets instead of Always.
const BundlePullPolicy = corev1.PullIfNotPresent

// BundlePullPolicyName names the policy and its binding.
func BundlePullPolicyName(l *lab.Lab) string {
	return l.Name + "-tenant-control-plane-if-not-present"
}

// The CEL of the policy. Admission runs after defaulting, so every container
// has a policy; has() keeps the expressions total anyway. The mutation is an
// apply configuration: spec.containers is a list map keyed by name, so only
// the named containers' imagePullPolicy changes and every other field and
// container stays (k8s.io/apiserver@v0.37.0 pkg/admission/plugin/policy/
// mutating/patch/smd.go ApplyStructuredMergeDiff, and its test "apply
// configuration modify existing env variable").
const (
	pullAlwaysCondition = `object.spec.containers.exists(c, has(c.imagePullPolicy) && c.imagePullPolicy == "Always")`
	pullIfNotPresent    = `Object{
  spec: Object.spec{
    containers: object.spec.containers.filter(c, has(c.imagePullPolicy) && c.imagePullPolicy == "Always").map(c,
      Object.spec.containers{name: c.name, imagePullPolicy: "` + string(BundlePullPolicy) + `"})
  }
}`
)

// BundlePullPolicyObjects are the MutatingAdmissionPolicy and its binding
// (admissionregistration.k8s.io/v1, k8s.io/api@v0.36.3
// admissionregistration/v1/types.go MutatingAdmissionPolicy, introduced
// 1.36). The policy matches Pod CREATE; the binding narrows it to the lab's
// tenant namespaces (labelled by Namespace) and to Kamaji's control-plane
// pods, so kamaji-system, cert-manager and kind's own pods are never touched.
func BundlePullPolicyObjects(l *lab.Lab) (*admissionregistrationv1.MutatingAdmissionPolicy,
	*admissionregistrationv1.MutatingAdmissionPolicyBinding) {
	name := BundlePullPolicyName(l)
	meta := metav1.ObjectMeta{Name: name, Labels: map[string]string{LabelLab: l.Name}}
	fail := admissionregistrationv1.Fail
	policy := &admissionregistrationv1.MutatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "MutatingAdmissionPolicy"},
		ObjectMeta: meta,
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule: admissionregistrationv1.Rule{
							APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"},
						},
					},
				}},
			},
			MatchConditions: []admissionregistrationv1.MatchCondition{{
				Name: "pulls-always", Expression: pullAlwaysCondition,
			}},
			Mutations: []admissionregistrationv1.Mutation{{
				PatchType:          admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: pullIfNotPresent},
			}},
			// Fail: a pod the policy cannot mutate would pull, and offline
			// that fails later and less clearly (ErrImagePull).
			FailurePolicy:      &fail,
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
		},
	}
	binding := &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "MutatingAdmissionPolicyBinding"},
		ObjectMeta: *meta.DeepCopy(),
		Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{
			PolicyName: name,
			MatchResources: &admissionregistrationv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{LabelLab: l.Name}},
				ObjectSelector: &metav1.LabelSelector{
					MatchLabels: map[string]string{KamajiPodLabelComponent: KamajiPodComponent},
					MatchExpressions: []metav1.LabelSelectorRequirement{{
						Key: KamajiPodLabelName, Operator: metav1.LabelSelectorOpExists,
					}},
				},
			},
		},
	}
	return policy, binding
}
