package render

import (
	"fmt"
	"path"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/manifests"
)

// Namespace is the management-cluster namespace holding a tenant's control plane.
func Namespace(l *lab.Lab, tenant string) *corev1.Namespace {
	return &corev1.Namespace{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: TenantNamespace(tenant), Labels: map[string]string{
			LabelTenant: tenant, LabelLab: l.Name,
		}},
	}
}

// All renders every manifest of the lab, in the order a lab is built:
//
//	management/kind-config.yaml
//	management/bundle-pull-policy.yaml               applied only with an image bundle (bundlepullpolicy.go)
//	management/<tenant>/tenant-control-plane.yaml   Namespace + TenantControlPlane
//	tenants/<tenant>/kube-proxy-rbac.yaml           static (manifests package)
//	tenants/<tenant>/kube-proxy.yaml                ConfigMap + DaemonSet
//	tenants/<tenant>/nvml-mock.yaml                 ConfigMap + DaemonSet: the mock NVML library on each worker
//	tenants/<tenant>/hami-values.yaml               helm values for chart hami
//
// The GPU registration the local environment writes (WorkerRegistration) is
// not among them: in the real lab HAMi's device plugin registers the cards.
func All(l *lab.Lab, o Options) ([]File, error) {
	var out []File
	add := func(name string, objs ...any) error {
		y, err := YAML(objs...)
		if err != nil {
			return fmt.Errorf("render %s: %w", name, err)
		}
		out = append(out, File{Name: name, Data: y})
		return nil
	}
	kc, err := KindConfig(l, o)
	if err != nil {
		return nil, err
	}
	if err := add("management/kind-config.yaml", kc); err != nil {
		return nil, err
	}
	policy, binding := BundlePullPolicyObjects(l)
	if err := add("management/bundle-pull-policy.yaml", policy, binding); err != nil {
		return nil, err
	}
	rbac, err := manifests.Read(manifests.TenantKubeProxyRBAC)
	if err != nil {
		return nil, err
	}
	for _, t := range l.Tenants {
		tcp, err := TenantControlPlaneFor(l, t.Name, o)
		if err != nil {
			return nil, err
		}
		if err := add(path.Join("management", t.Name, "tenant-control-plane.yaml"), Namespace(l, t.Name), tcp); err != nil {
			return nil, err
		}
		dir := path.Join("tenants", t.Name)
		out = append(out, File{Name: path.Join(dir, "kube-proxy-rbac.yaml"), Data: rbac})
		cm, ds, err := KubeProxy(l, t.Name, o)
		if err != nil {
			return nil, err
		}
		if err := add(path.Join(dir, "kube-proxy.yaml"), cm, ds); err != nil {
			return nil, err
		}
		mock, err := NVMLMockObjects(l, t.Name, NVMLMockImage)
		if err != nil {
			return nil, err
		}
		if err := add(path.Join(dir, "nvml-mock.yaml"), mock...); err != nil {
			return nil, err
		}
		hv, err := HAMiValuesFor(l, t.Name)
		if err != nil {
			return nil, err
		}
		if err := add(path.Join(dir, "hami-values.yaml"), hv); err != nil {
			return nil, err
		}
	}
	return out, nil
}
