package render

import (
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func selector(t *testing.T, s *metav1.LabelSelector) labels.Selector {
	t.Helper()
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

// TestBundlePullPolicySelectsOnlyTenantControlPlanePods: the binding selects
// the namespaces Namespace renders for the lab's tenants and the pods Kamaji
// labels as a control plane (deployment.go:1106-1107), and nothing else the
// management cluster runs.
func TestBundlePullPolicySelectsOnlyTenantControlPlanePods(t *testing.T) {
	for name, l := range testLabs(t) {
		policy, binding := BundlePullPolicyObjects(l)
		if binding.Spec.PolicyName != policy.Name {
			t.Errorf("%s: binding names policy %q, the policy is %q", name, binding.Spec.PolicyName, policy.Name)
		}
		ns := selector(t, binding.Spec.MatchResources.NamespaceSelector)
		for _, tn := range l.Tenants {
			if got := Namespace(l, tn.Name).Labels; !ns.Matches(labels.Set(got)) {
				t.Errorf("%s: tenant namespace %s (labels %v) not selected by %s", name, tn.Name, got, ns)
			}
		}
		// Namespaces the lab does not label: Kamaji's, cert-manager's, kind's.
		for _, other := range []map[string]string{
			{"kubernetes.io/metadata.name": "kamaji-system"},
			{"kubernetes.io/metadata.name": "kube-system"},
			{LabelLab: l.Name + "-other"},
		} {
			if ns.Matches(labels.Set(other)) {
				t.Errorf("%s: namespace labelled %v selected", name, other)
			}
		}
		pods := selector(t, binding.Spec.MatchResources.ObjectSelector)
		kamajiPod := map[string]string{KamajiPodLabelName: "tenant-a", KamajiPodLabelComponent: KamajiPodComponent,
			"component.kamaji.clastix.io/ca": "x"}
		if !pods.Matches(labels.Set(kamajiPod)) {
			t.Errorf("%s: a tenant control-plane pod (%v) is not selected by %s", name, kamajiPod, pods)
		}
		for _, other := range []map[string]string{
			{KamajiPodLabelName: "tenant-a"},        // no component label
			{KamajiPodLabelComponent: "deployment"}, // no tenant name
			{"app.kubernetes.io/name": "kamaji-etcd"},
			{"app.kubernetes.io/name": "kamaji", "app.kubernetes.io/component": "controller-manager"},
		} {
			if pods.Matches(labels.Set(other)) {
				t.Errorf("%s: pod labelled %v selected", name, other)
			}
		}
	}
}

// TestBundlePullPolicyMatchesPodCreateOnly: Kamaji's Deployment is left
// alone (Kamaji would undo a change there) and an existing pod is never
// rewritten; only a pod being created is.
func TestBundlePullPolicyMatchesPodCreateOnly(t *testing.T) {
	policy, _ := BundlePullPolicyObjects(testLabs(t)["default"])
	rules := policy.Spec.MatchConstraints.ResourceRules
	if len(rules) != 1 {
		t.Fatalf("rules = %+v, want one", rules)
	}
	r := rules[0]
	if len(r.Operations) != 1 || r.Operations[0] != admissionregistrationv1.Create {
		t.Errorf("operations = %v, want CREATE only", r.Operations)
	}
	if len(r.APIGroups) != 1 || r.APIGroups[0] != "" || len(r.Resources) != 1 || r.Resources[0] != "pods" {
		t.Errorf("rule = %+v, want core pods only (no subresources)", r.Rule)
	}
	if p := policy.Spec.FailurePolicy; p == nil || *p != admissionregistrationv1.Fail {
		t.Errorf("failurePolicy = %v, want Fail", p)
	}
	if len(policy.Spec.Mutations) != 1 || policy.Spec.Mutations[0].PatchType != admissionregistrationv1.PatchTypeApplyConfiguration {
		t.Errorf("mutations = %+v, want one apply configuration", policy.Spec.Mutations)
	}
}
