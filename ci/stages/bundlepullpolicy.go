package stages

import (
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/render"
)

// With an image bundle the tenants stage first installs
// render.BundlePullPolicyObjects, which turns the imagePullPolicy Always
// Kamaji hard-codes on kube-apiserver and konnectivity-server into
// IfNotPresent (render/bundlepullpolicy.go says why this and not something
// else), and proves it is in force before any TenantControlPlane exists:
// the API server loads policies asynchronously, and a pod created before
// that would be pulled Always.

// pullPolicyProbe names the dry-run pod that proves the policy is in force.
const pullPolicyProbe = "gpu-lab-pull-policy-probe"

// pullPolicyProbeImage is never pulled: the probe is only ever a dry run.
const pullPolicyProbeImage = "gpu-lab.invalid/pull-policy-probe:dry-run"

// bundlePullPolicyPlan is the --dry-run text of the policy (nil without a bundle).
func bundlePullPolicyPlan(e *Env) ([]string, error) {
	if e.Preload == nil {
		return nil, nil
	}
	policy, binding := render.BundlePullPolicyObjects(e.Lab)
	y, err := render.YAML(policy, binding)
	if err != nil {
		return nil, err
	}
	return []string{
		fmt.Sprintf("image bundle: apply (Kamaji pulls kube-apiserver and konnectivity-server Always; this "+
			"makes it IfNotPresent on tenant control-plane pods):\n%s", indent(string(y))),
		fmt.Sprintf("wait until a dry-run create of Pod %s (labelled like Kamaji's pods, imagePullPolicy "+
			"Always) in every tenant namespace comes back IfNotPresent (%s)", pullPolicyProbe, e.Timeouts.Rollout),
	}, nil
}

// bundlePullPolicyInstalled reports whether the policy and its binding are
// there when a bundle is used (true without a bundle: nothing is needed).
func bundlePullPolicyInstalled(ctx context.Context, e *Env, mc *Clients) (bool, error) {
	if e.Preload == nil {
		return true, nil
	}
	name := render.BundlePullPolicyName(e.Lab)
	ar := mc.Kube.AdmissionregistrationV1()
	if _, err := ar.MutatingAdmissionPolicies().Get(ctx, name, metav1.GetOptions{}); err != nil {
		return false, ignoreNotFound(err)
	}
	if _, err := ar.MutatingAdmissionPolicyBindings().Get(ctx, name, metav1.GetOptions{}); err != nil {
		return false, ignoreNotFound(err)
	}
	return true, nil
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// ensureBundlePullPolicy applies the policy and its binding, then waits
// until the API server applies them to a pod of each tenant namespace. The
// namespaces must exist. Without a bundle it does nothing.
func ensureBundlePullPolicy(ctx context.Context, e *Env, mc *Clients) (string, error) {
	if e.Preload == nil {
		return "", nil
	}
	policy, binding := render.BundlePullPolicyObjects(e.Lab)
	obj := "MutatingAdmissionPolicy " + policy.Name
	if err := applyPolicy(ctx, mc, policy, binding); err != nil {
		return "", fail(stageTenants, obj, "apply", err)
	}
	for _, t := range e.Lab.Tenants {
		ns := render.TenantNamespace(t.Name)
		cond, err := e.wait(ctx, e.Timeouts.Rollout, obj+" in namespace "+ns, func(ctx context.Context) (bool, string, error) {
			return probePullPolicy(ctx, mc, ns)
		})
		if err != nil {
			return "", fail(stageTenants, obj, cond, fmt.Errorf("tenant control-plane pods in namespace %s would still be pulled Always: %w", ns, err))
		}
	}
	return "tenant control-plane images IfNotPresent (" + obj + ")", nil
}

// applyPolicy creates or updates the policy and its binding (typed clients:
// the fake clients of the tests track them).
func applyPolicy(ctx context.Context, mc *Clients, policy *admissionregistrationv1.MutatingAdmissionPolicy, binding *admissionregistrationv1.MutatingAdmissionPolicyBinding) error {
	ps := mc.Kube.AdmissionregistrationV1().MutatingAdmissionPolicies()
	cur, err := ps.Get(ctx, policy.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = ps.Create(ctx, policy, metav1.CreateOptions{FieldManager: "labctl"})
	case err == nil:
		policy.ResourceVersion = cur.ResourceVersion
		_, err = ps.Update(ctx, policy, metav1.UpdateOptions{FieldManager: "labctl"})
	}
	if err != nil {
		return fmt.Errorf("MutatingAdmissionPolicy %s: %w", policy.Name, err)
	}
	bs := mc.Kube.AdmissionregistrationV1().MutatingAdmissionPolicyBindings()
	curB, err := bs.Get(ctx, binding.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = bs.Create(ctx, binding, metav1.CreateOptions{FieldManager: "labctl"})
	case err == nil:
		binding.ResourceVersion = curB.ResourceVersion
		_, err = bs.Update(ctx, binding, metav1.UpdateOptions{FieldManager: "labctl"})
	}
	if err != nil {
		return fmt.Errorf("MutatingAdmissionPolicyBinding %s: %w", binding.Name, err)
	}
	return nil
}

// probePullPolicy creates, as a dry run (admission runs, nothing is stored
// or started), a pod labelled like Kamaji's control-plane pods with
// imagePullPolicy Always, and reads the policy the API server would store.
func probePullPolicy(ctx context.Context, mc *Clients, ns string) (bool, string, error) {
	probe := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: pullPolicyProbe, Namespace: ns, Labels: map[string]string{
			render.KamajiPodLabelName: pullPolicyProbe, render.KamajiPodLabelComponent: render.KamajiPodComponent,
		}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "kube-apiserver", Image: pullPolicyProbeImage, ImagePullPolicy: corev1.PullAlways,
		}}},
	}
	got, err := mc.Kube.CoreV1().Pods(ns).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		return false, "", fmt.Errorf("dry-run pod %s/%s: %w", ns, pullPolicyProbe, err)
	}
	if len(got.Spec.Containers) != 1 {
		b, _ := yaml.Marshal(got.Spec.Containers)
		return false, "", fmt.Errorf("dry-run pod %s/%s came back with containers %s", ns, pullPolicyProbe, b)
	}
	p := got.Spec.Containers[0].ImagePullPolicy
	if p != render.BundlePullPolicy {
		return false, fmt.Sprintf("a dry-run pod still asks imagePullPolicy %s (the API server has not loaded the policy yet)", p), nil
	}
	return true, "a dry-run pod comes back imagePullPolicy " + string(p), nil
}
