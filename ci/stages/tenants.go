package stages

import (
	"context"
	"fmt"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
	"github.com/gpu-lab/gpu-lab/ci/internal/kubeconfig"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// tcpGVR is Kamaji's TenantControlPlane.
var tcpGVR = schema.GroupVersionResource{Group: "kamaji.clastix.io", Version: "v1alpha1", Resource: "tenantcontrolplanes"}

// tenantsStage creates one TenantControlPlane per tenant and stores each
// admin kubeconfig, rewritten to be reachable from labctl.
type tenantsStage struct{}

func (tenantsStage) Name() string { return stageTenants }

func (tenantsStage) Plan(e *Env) ([]string, error) {
	o := e.Reach.renderOptions(render.PlaceholderManagementAddress)
	var out []string
	for _, t := range e.Lab.Tenants {
		out = append(out, fmt.Sprintf("apply Namespace %s", render.TenantNamespace(t.Name)))
	}
	policy, err := bundlePullPolicyPlan(e)
	if err != nil {
		return nil, err
	}
	out = append(out, policy...)
	for _, t := range e.Lab.Tenants {
		tcp, err := render.TenantControlPlaneFor(e.Lab, t.Name, o)
		if err != nil {
			return nil, err
		}
		y, err := yaml.Marshal(tcp)
		if err != nil {
			return nil, err
		}
		ns := render.TenantNamespace(t.Name)
		out = append(out,
			fmt.Sprintf("apply (management address = the control-plane node's IPv4, %s here):\n%s", render.PlaceholderManagementAddress, indent(string(y))),
			fmt.Sprintf("wait TenantControlPlane %s/%s status.kubernetesResources.version.status == Ready (%s)", ns, t.Name, e.Timeouts.TenantReady),
			fmt.Sprintf("read Secret %s/%s-admin-kubeconfig key admin.conf, server → %s, write %s", ns, t.Name, e.Reach.tenantServer(render.PlaceholderManagementAddress, t.Ports.APIServer), e.State.Kubeconfig(t.Name)),
		)
	}
	return out, nil
}

func (s tenantsStage) Check(ctx context.Context, e *Env) (bool, string, error) {
	mc, err := e.managementClients()
	if err != nil {
		return false, "", nil
	}
	ip, err := e.managementIP(ctx)
	if err != nil {
		return false, "", nil
	}
	if ok, err := bundlePullPolicyInstalled(ctx, e, mc); err != nil || !ok {
		return false, "", nil
	}
	var conds []string
	for _, t := range e.Lab.Tenants {
		tcp, err := mc.Dynamic.Resource(tcpGVR).Namespace(render.TenantNamespace(t.Name)).Get(ctx, t.Name, metav1.GetOptions{})
		if err != nil {
			return false, "", nil
		}
		if ok, _ := kube.TCPReady(tcp); !ok {
			return false, "", nil
		}
		kc, err := os.ReadFile(e.State.Kubeconfig(t.Name))
		if err != nil {
			return false, "", nil
		}
		if srv, err := kubeconfig.Server(kc); err != nil || srv != e.Reach.tenantServer(ip, t.Ports.APIServer) {
			return false, "", nil
		}
		conds = append(conds, t.Name+" Ready")
	}
	return true, strings.Join(conds, ", "), nil
}

func (s tenantsStage) Run(ctx context.Context, e *Env) (string, error) {
	mc, err := e.managementClients()
	if err != nil {
		return "", fail(stageTenants, "management cluster", "", err)
	}
	opts, err := e.renderOptions(ctx)
	if err != nil {
		return "", fail(stageTenants, "management node", "", err)
	}
	for _, t := range e.Lab.Tenants {
		if err := mc.serverSideApplier().ApplyAll(ctx, render.Namespace(e.Lab, t.Name)); err != nil {
			return "", fail(stageTenants, "Namespace "+render.TenantNamespace(t.Name), "apply", err)
		}
	}
	// With a bundle, before any control-plane pod exists.
	policy, err := ensureBundlePullPolicy(ctx, e, mc)
	if err != nil {
		return "", err
	}
	// Apply every tenant first so Kamaji provisions them concurrently.
	for _, t := range e.Lab.Tenants {
		ns := render.TenantNamespace(t.Name)
		tcp, err := render.TenantControlPlaneFor(e.Lab, t.Name, opts)
		if err != nil {
			return "", fail(stageTenants, "TenantControlPlane "+ns+"/"+t.Name, "render", err)
		}
		if err := mc.serverSideApplier().ApplyAll(ctx, tcp); err != nil {
			return "", fail(stageTenants, "TenantControlPlane "+ns+"/"+t.Name, "apply", err)
		}
	}
	var done []string
	if policy != "" {
		done = append(done, policy)
	}
	for _, t := range e.Lab.Tenants {
		cond, err := tenantReady(ctx, e, mc, t, opts)
		if err != nil {
			return "", err
		}
		done = append(done, t.Name+" ("+cond+")")
	}
	return strings.Join(done, "; "), nil
}

// tenantReady waits for the tenant's TenantControlPlane to be Ready, writes
// its admin kubeconfig (the server rewritten to where labctl reaches it)
// and waits until that admin can list Nodes; it returns the Ready condition.
func tenantReady(ctx context.Context, e *Env, mc *Clients, t lab.Tenant, opts render.Options) (string, error) {
	ns := render.TenantNamespace(t.Name)
	obj := "TenantControlPlane " + ns + "/" + t.Name
	var tcp *unstructured.Unstructured
	cond, err := e.wait(ctx, e.Timeouts.TenantReady, obj, func(ctx context.Context) (bool, string, error) {
		u, err := mc.Dynamic.Resource(tcpGVR).Namespace(ns).Get(ctx, t.Name, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		tcp = u
		ok, cond := kube.TCPReady(u)
		return ok, cond, nil
	})
	if err != nil {
		return "", fail(stageTenants, obj, cond, err)
	}
	secretName := kube.TCPAdminSecret(tcp)
	sec, err := mc.Kube.CoreV1().Secrets(ns).Get(ctx, secretName, metav1.GetOptions{})
	if err != nil {
		return "", fail(stageTenants, "Secret "+ns+"/"+secretName, cond, err)
	}
	raw := sec.Data["admin.conf"]
	if len(raw) == 0 {
		return "", failf(stageTenants, "Secret "+ns+"/"+secretName, cond, "no admin.conf key (keys: %s)", secretKeys(sec))
	}
	kc, err := kubeconfig.RewriteServer(raw, e.Reach.tenantServer(opts.ManagementAddress, t.Ports.APIServer))
	if err != nil {
		return "", fail(stageTenants, "Secret "+ns+"/"+secretName, "", err)
	}
	if err := e.State.WriteKubeconfig(t.Name, kc); err != nil {
		return "", fail(stageTenants, e.State.Kubeconfig(t.Name), "", err)
	}
	e.forget(t.Name)
	// Kamaji's soot controller sets up the admin's RBAC shortly after
	// Ready (Kamaji 26.8.2-edge e2e/worker_kubeadm_join_test.go:133 retries
	// for a minute for it): wait until the admin can list nodes.
	tc, err := e.tenantClients(t.Name)
	if err != nil {
		return "", fail(stageTenants, "tenant "+t.Name, "", err)
	}
	c2, err := e.wait(ctx, e.Timeouts.Rollout, "admin RBAC in tenant "+t.Name, func(ctx context.Context) (bool, string, error) {
		_, err := tc.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, "", err
		}
		return true, "admin can list nodes", nil
	})
	if err != nil {
		return "", fail(stageTenants, "tenant API "+e.Reach.tenantServer(opts.ManagementAddress, t.Ports.APIServer), c2, err)
	}
	return cond, nil
}

func secretKeys(s *corev1.Secret) string {
	var ks []string
	for k := range s.Data {
		ks = append(ks, k)
	}
	return strings.Join(ks, ", ")
}
