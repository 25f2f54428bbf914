package stages

import (
	"context"
	"fmt"

	"github.com/gpu-lab/gpu-lab/ci/render"
	"github.com/gpu-lab/gpu-lab/ci/stages/internal/pullpolicy"
)

// With an image bundle the tenants stage first installs
// render.BundlePullPolicyObjects, which turns the imagePullPolicy Always
// Kamaji hard-codes on kube-apiserver and konnectivity-server into
// IfNotPresent (render/bundlepullpolicy.go says why this and not something
// else), and proves it is in force before any TenantControlPlane exists:
// the API server loads policies asynchronously, and a pod created before
// that would be pulled Always. ci/stages/internal/pullpolicy applies and
// probes it; what follows is the stage's glue.

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
			"Always) in every tenant namespace comes back IfNotPresent (%s)", pullpolicy.ProbeName, e.Timeouts.Rollout),
	}, nil
}

// bundlePullPolicyInstalled reports whether the policy and its binding are
// there when a bundle is used (true without a bundle: nothing is needed).
func bundlePullPolicyInstalled(ctx context.Context, e *Env, mc *Clients) (bool, error) {
	if e.Preload == nil {
		return true, nil
	}
	return pullpolicy.Installed(ctx, mc.Kube, e.Lab)
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
	if err := pullpolicy.Apply(ctx, mc.Kube, policy, binding); err != nil {
		return "", fail(stageTenants, obj, "apply", err)
	}
	for _, t := range e.Lab.Tenants {
		ns := render.TenantNamespace(t.Name)
		cond, err := e.wait(ctx, e.Timeouts.Rollout, obj+" in namespace "+ns, func(ctx context.Context) (bool, string, error) {
			return pullpolicy.Probe(ctx, mc.Kube, ns)
		})
		if err != nil {
			return "", fail(stageTenants, obj, cond,
				fmt.Errorf("tenant control-plane pods in namespace %s would still be pulled Always: %w", ns, err))
		}
	}
	return "tenant control-plane images IfNotPresent (" + obj + ")", nil
}
