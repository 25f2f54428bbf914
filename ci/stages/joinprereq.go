package stages

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// tenantObject names one object in a tenant cluster.
type tenantObject struct {
	Kind      string // ConfigMap, Role, RoleBinding, ClusterRole, ClusterRoleBinding
	Namespace string // empty for cluster-scoped kinds
	Name      string
}

func (o tenantObject) String() string {
	if o.Namespace == "" {
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name
}

// joinPrerequisites are the tenant objects a kubeadm join reads or is
// authorised by. Kamaji 26.8.2-edge writes them in its kubeadm phases
// (internal/resources/kubeadm_phases.go: PhaseUploadConfigKubeadm,
// PhaseUploadConfigKubelet, PhaseBootstrapToken), which run in parallel and
// may still be running when the TenantControlPlane reports Ready; a join
// started before they exist fails discovery or the TLS bootstrap. Kamaji
// calls kubeadm's own phase code (k8s.io/kubernetes v1.36.3 in its go.mod),
// so the names are kubeadm v1.36.3's:
//   - internal/kubeadm/bootstraptoken.go → ConfigMap kube-public/cluster-info
//     (k8s.io/cluster-bootstrap token/api ConfigMapClusterInfo) and
//     clusterinfo.CreateClusterInfoRBACRules (Role and RoleBinding
//     kube-public/kubeadm:bootstrap-signer-clusterinfo); node.* in
//     phases/bootstraptoken/node/tlsbootstrap.go → ClusterRoleBindings
//     kubeadm:kubelet-bootstrap, kubeadm:get-nodes (and its ClusterRole),
//     kubeadm:node-autoapprove-bootstrap,
//     kubeadm:node-autoapprove-certificate-rotation,
//     kubeadm:apiserver-kubelet-client (constants/constants.go);
//   - internal/kubeadm/uploadconfig.go → uploadconfig.UploadConfiguration:
//     ConfigMap kube-system/kubeadm-config, Role and RoleBinding
//     kube-system/kubeadm:nodes-kubeadm-config; UploadKubeletConfig:
//     ConfigMap kube-system/kubelet-config (KubeletBaseConfigurationConfigMap,
//     for Kubernetes ≥ 1.24), Role and RoleBinding
//     kube-system/kubeadm:kubelet-config (KubeletBaseConfigMapRole).
func joinPrerequisites() []tenantObject {
	const pub, sys = "kube-public", "kube-system"
	return []tenantObject{
		{"ConfigMap", pub, "cluster-info"},
		{"Role", pub, "kubeadm:bootstrap-signer-clusterinfo"},
		{"RoleBinding", pub, "kubeadm:bootstrap-signer-clusterinfo"},
		{"ConfigMap", sys, "kubeadm-config"},
		{"Role", sys, "kubeadm:nodes-kubeadm-config"},
		{"RoleBinding", sys, "kubeadm:nodes-kubeadm-config"},
		{"ConfigMap", sys, "kubelet-config"},
		{"Role", sys, "kubeadm:kubelet-config"},
		{"RoleBinding", sys, "kubeadm:kubelet-config"},
		{"ClusterRole", "", "kubeadm:get-nodes"},
		{"ClusterRoleBinding", "", "kubeadm:get-nodes"},
		{"ClusterRoleBinding", "", "kubeadm:kubelet-bootstrap"},
		{"ClusterRoleBinding", "", "kubeadm:node-autoapprove-bootstrap"},
		{"ClusterRoleBinding", "", "kubeadm:node-autoapprove-certificate-rotation"},
		{"ClusterRoleBinding", "", "kubeadm:apiserver-kubelet-client"},
	}
}

// missingTenantObjects lists the objects the tenant does not have yet.
func missingTenantObjects(ctx context.Context, c kubernetes.Interface, objs []tenantObject) ([]tenantObject, error) {
	var missing []tenantObject
	for _, o := range objs {
		var err error
		switch o.Kind {
		case "ConfigMap":
			_, err = c.CoreV1().ConfigMaps(o.Namespace).Get(ctx, o.Name, metav1.GetOptions{})
		case "Role":
			_, err = c.RbacV1().Roles(o.Namespace).Get(ctx, o.Name, metav1.GetOptions{})
		case "RoleBinding":
			_, err = c.RbacV1().RoleBindings(o.Namespace).Get(ctx, o.Name, metav1.GetOptions{})
		case "ClusterRole":
			_, err = c.RbacV1().ClusterRoles().Get(ctx, o.Name, metav1.GetOptions{})
		case "ClusterRoleBinding":
			_, err = c.RbacV1().ClusterRoleBindings().Get(ctx, o.Name, metav1.GetOptions{})
		default:
			return nil, fmt.Errorf("tenant object %s: unknown kind", o)
		}
		switch {
		case apierrors.IsNotFound(err):
			missing = append(missing, o)
		case err != nil:
			return nil, fmt.Errorf("get %s: %w", o, err)
		}
	}
	return missing, nil
}

// joinPrerequisitesPresent is the wait condition before a tenant's first
// bootstrap token: every joinPrerequisites object exists.
func joinPrerequisitesPresent(ctx context.Context, c kubernetes.Interface) (bool, string, error) {
	missing, err := missingTenantObjects(ctx, c, joinPrerequisites())
	if err != nil {
		return false, "", err
	}
	if len(missing) > 0 {
		names := make([]string, len(missing))
		for i, o := range missing {
			names[i] = o.String()
		}
		return false, fmt.Sprintf("Kamaji has not written %d/%d join objects yet: %s",
			len(missing), len(joinPrerequisites()), strings.Join(names, ", ")), nil
	}
	return true, "Kamaji's join objects present", nil
}
