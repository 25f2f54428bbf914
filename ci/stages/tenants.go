package stages

import (
	"context"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

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

func (tenantsStage) Plan(e *Env) ([]string, error) { return planOf(newTenantsRun(e).steps) }

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
	r := newTenantsRun(e)
	if err := e.runBuilt(ctx, stageTenants, r.steps); err != nil {
		return "", err
	}
	var done []string
	if r.policy != "" {
		done = append(done, r.policy)
	}
	for _, t := range e.Lab.Tenants {
		done = append(done, t.Name+" ("+r.ready[t.Name]+")")
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
