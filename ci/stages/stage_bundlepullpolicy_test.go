package stages

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gpu-lab/gpu-lab/ci/render"
	"github.com/gpu-lab/gpu-lab/ci/stages/internal/pullpolicy"
)

// fakeAdmission stands for the management API server's admission chain in
// front of the fake clients: a dry-run pod create comes back mutated as a
// MutatingAdmissionPolicy would mutate it — only once the policy and its
// binding exist, their selectors match the pod's namespace (read from the
// dynamic client, where the stage applies namespaces) and labels, and
// `lag` further probes have passed (the API server loads policies
// asynchronously). events orders policy, probes and TenantControlPlanes.
type fakeAdmission struct {
	mu     sync.Mutex
	kube   *kubefake.Clientset
	dyn    *dynamicfake.FakeDynamicClient
	lag    int
	events []string
}

func (f *fakeAdmission) note(ev string) { f.mu.Lock(); f.events = append(f.events, ev); f.mu.Unlock() }

func installFakeAdmission(t *testing.T, mc *Clients, lag int) *fakeAdmission {
	f := &fakeAdmission{kube: mc.Kube.(*kubefake.Clientset), dyn: mc.Dynamic.(*dynamicfake.FakeDynamicClient), lag: lag}
	for _, res := range []string{"mutatingadmissionpolicies", "mutatingadmissionpolicybindings"} {
		f.kube.PrependReactor("create", res, func(a k8stesting.Action) (bool, runtime.Object, error) {
			f.note("create " + res)
			return false, nil, nil
		})
	}
	f.kube.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		ca := a.(k8stesting.CreateActionImpl)
		if len(ca.CreateOptions.DryRun) != 1 || ca.CreateOptions.DryRun[0] != metav1.DryRunAll {
			t.Errorf("the probe pod was created for real: %+v", ca.CreateOptions)
			return true, nil, fmt.Errorf("not a dry run")
		}
		pod := ca.GetObject().(*corev1.Pod).DeepCopy()
		if f.admits(t, pod) {
			for i, c := range pod.Spec.Containers {
				if c.ImagePullPolicy == corev1.PullAlways {
					pod.Spec.Containers[i].ImagePullPolicy = corev1.PullIfNotPresent
				}
			}
			f.note("probe mutated " + pod.Namespace)
		} else {
			f.note("probe unmutated " + pod.Namespace)
		}
		return true, pod, nil // a dry run stores nothing
	})
	f.dyn.PrependReactor("patch", "tenantcontrolplanes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		f.note("apply tcp " + a.GetNamespace())
		return false, nil, nil
	})
	return f
}

// admits reports whether the policy applies to pod (and counts the lag).
// It reads the trackers: the fakes' clients lock while a reactor runs.
func (f *fakeAdmission) admits(t *testing.T, pod *corev1.Pod) bool {
	ar := admissionregistrationv1.SchemeGroupVersion
	list, err := f.kube.Tracker().List(ar.WithResource("mutatingadmissionpolicybindings"), ar.WithKind("MutatingAdmissionPolicyBinding"), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range list.(*admissionregistrationv1.MutatingAdmissionPolicyBindingList).Items {
		if _, err := f.kube.Tracker().Get(ar.WithResource("mutatingadmissionpolicies"), "", b.Spec.PolicyName); err != nil {
			continue
		}
		obj, err := f.dyn.Tracker().Get(corev1.SchemeGroupVersion.WithResource("namespaces"), "", pod.Namespace)
		if err != nil {
			continue // no namespace: the API server would reject the pod
		}
		ns := obj.(metav1.Object)
		nsSel, err1 := metav1.LabelSelectorAsSelector(b.Spec.MatchResources.NamespaceSelector)
		podSel, err2 := metav1.LabelSelectorAsSelector(b.Spec.MatchResources.ObjectSelector)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !nsSel.Matches(labels.Set(ns.GetLabels())) || !podSel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.lag > 0 {
			f.lag--
			return false
		}
		return true
	}
	return false
}

// readyTenants makes every applied TenantControlPlane Ready at once and
// gives each tenant namespace Kamaji's admin kubeconfig secret.
func readyTenants(t *testing.T, e *Env, mc *Clients) {
	dyn := mc.Dynamic.(*dynamicfake.FakeDynamicClient)
	dyn.PrependReactor("get", "tenantcontrolplanes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if _, err := dyn.Tracker().Get(tcpGVR, a.GetNamespace(), a.(k8stesting.GetAction).GetName()); err != nil {
			return false, nil, nil // not applied yet: Apply creates it
		}
		return true, tcpWith(map[string]any{"kubernetesResources": map[string]any{"version": map[string]any{"status": "Ready"}}}), nil
	})
	for _, tn := range e.Lab.TenantNames() {
		_, err := mc.Kube.CoreV1().Secrets(tn).Create(context.Background(), &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "tenant-a-admin-kubeconfig", Namespace: tn},
			Data:       map[string][]byte{"admin.conf": adminConf(t, "https://172.18.0.2:31443")},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestTenantsStageInstallsThePullPolicyFirstWithABundle: with a bundle, the
// policy and its binding exist and a dry-run pod in every tenant namespace
// comes back IfNotPresent before the first TenantControlPlane is applied;
// a probe the API server has not mutated yet is retried, not taken.
func TestTenantsStageInstallsThePullPolicyFirstWithABundle(t *testing.T) {
	e, d, _, mc := managementUp(t)
	withBundle(t, e, d)
	adm := installFakeAdmission(t, mc, 2)
	readyTenants(t, e, mc)
	ran := &stepRecorder{}
	e.Steps = ran
	msg, err := tenantsStage{}.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	ran.didWhatThePlanSays(t, newTenantsRun(e).steps)
	ev := adm.events
	firstTCP := len(ev)
	for i, x := range ev {
		if strings.HasPrefix(x, "apply tcp ") {
			firstTCP = i
			break
		}
	}
	if firstTCP == len(ev) {
		t.Fatalf("no TenantControlPlane applied:\n%s", strings.Join(ev, "\n"))
	}
	for _, want := range []string{"create mutatingadmissionpolicies", "create mutatingadmissionpolicybindings"} {
		if at := indexOf(ev, want); at < 0 || at > firstTCP {
			t.Errorf("%s at event %d, the first TenantControlPlane at %d:\n%s", want, at, firstTCP, strings.Join(ev, "\n"))
		}
	}
	for _, tn := range e.Lab.Tenants {
		if at := indexOf(ev, "probe mutated "+tn.Name); at < 0 || at > firstTCP {
			t.Errorf("namespace %s: mutated probe at event %d, the first TenantControlPlane at %d:\n%s", tn.Name, at, firstTCP,
				strings.Join(ev, "\n"))
		}
	}
	if indexOf(ev, "probe unmutated "+e.Lab.Tenants[0].Name) < 0 {
		t.Errorf("the lagging policy was never observed unmutated:\n%s", strings.Join(ev, "\n"))
	}
	if !strings.Contains(msg, "IfNotPresent (MutatingAdmissionPolicy "+render.BundlePullPolicyName(e.Lab)+")") {
		t.Errorf("summary = %s", msg)
	}
	// Check wants the policy while a bundle is used.
	if done, _, err := (tenantsStage{}).Check(context.Background(), e); err != nil || !done {
		t.Errorf("Check after Run = %v, %v", done, err)
	}
	if err := mc.Kube.AdmissionregistrationV1().MutatingAdmissionPolicyBindings().Delete(context.Background(),
		render.BundlePullPolicyName(e.Lab), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if done, _, _ := (tenantsStage{}).Check(context.Background(), e); done {
		t.Error("Check: done without the policy binding while a bundle is used")
	}
	e.Preload = nil
	if done, _, err := (tenantsStage{}).Check(context.Background(), e); err != nil || !done {
		t.Errorf("Check without a bundle = %v, %v: the policy is needed only with one", done, err)
	}
}

// TestTenantsStageWithoutABundleLeavesPullPoliciesAlone: no bundle, no
// policy and no probe.
func TestTenantsStageWithoutABundleLeavesPullPoliciesAlone(t *testing.T) {
	e, _, _, mc := managementUp(t)
	adm := installFakeAdmission(t, mc, 0)
	readyTenants(t, e, mc)
	if _, err := (tenantsStage{}).Run(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	for _, x := range adm.events {
		if !strings.HasPrefix(x, "apply tcp ") {
			t.Errorf("without a bundle: %s", x)
		}
	}
	ps, _ := mc.Kube.AdmissionregistrationV1().MutatingAdmissionPolicies().List(context.Background(), metav1.ListOptions{})
	if len(ps.Items) != 0 {
		t.Errorf("policies installed without a bundle: %v", ps.Items)
	}
}

// TestTenantsStageFailsWhenThePolicyNeverTakes: an API server that never
// mutates (the policy not served, or its binding selecting nothing) fails
// the stage before any TenantControlPlane, naming the policy.
func TestTenantsStageFailsWhenThePolicyNeverTakes(t *testing.T) {
	e, d, _, mc := managementUp(t)
	withBundle(t, e, d)
	adm := installFakeAdmission(t, mc, 1<<30)
	readyTenants(t, e, mc)
	e.Timeouts.Rollout = 200 * time.Millisecond
	_, err := tenantsStage{}.Run(context.Background(), e)
	if err == nil {
		t.Fatal("want an error")
	}
	for _, part := range []string{"stage tenants", "MutatingAdmissionPolicy " + render.BundlePullPolicyName(e.Lab),
		"still asks imagePullPolicy Always", "would still be pulled Always"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q lacks %q", err, part)
		}
	}
	for _, x := range adm.events {
		if strings.HasPrefix(x, "apply tcp ") {
			t.Errorf("a TenantControlPlane was applied although the policy never took: %v", adm.events)
		}
	}
}

// TestTenantsPlanShowsThePolicyOnlyWithABundle: --dry-run prints the policy,
// before the TenantControlPlanes, only when a bundle is used.
func TestTenantsPlanShowsThePolicyOnlyWithABundle(t *testing.T) {
	e, d, _, _ := testEnv(t)
	lines, err := tenantsStage{}.Plan(e)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(lines, "\n"), "MutatingAdmissionPolicy") {
		t.Error("plan without a bundle names the policy")
	}
	withBundle(t, e, d)
	lines, err = tenantsStage{}.Plan(e)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(lines, "\n")
	policy := strings.Index(text, "kind: MutatingAdmissionPolicy\n")
	tcp := strings.Index(text, "kind: TenantControlPlane")
	if policy < 0 || tcp < 0 || policy > tcp || !strings.Contains(text, "dry-run create of Pod "+pullpolicy.ProbeName) {
		t.Errorf("plan with a bundle: policy at %d, TenantControlPlane at %d:\n%s", policy, tcp, text)
	}
}
