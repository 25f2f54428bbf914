package lab

import (
	"sort"
	"strings"

	kindconfig "sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
)

// maxNodeNameLen bounds a worker's node name: it is also the worker
// container's hostname, which the kubelet registers as the node name, and a
// Linux hostname holds at most 64 bytes (63 for a DNS label).
const maxNodeNameLen = 63

// NodeName is the worker's container name, hostname and tenant node name:
// "<lab>-<tenant>-<worker>". Every package that needs the name asks here.
func (l *Lab) NodeName(tenant, worker string) string {
	return l.Name + "-" + tenant + "-" + worker
}

// ManagementNodeName is the container of the management cluster's only
// node. kind names node containers "<cluster>-<role>", with a number after
// the role from the second node of a role on (kind v0.33.0
// pkg/cluster/internal/providers/common/namer.go:25-36, used by
// pkg/cluster/internal/providers/docker/provision.go:42-46); the lab's kind
// config has one control-plane node (ci/render/kind.go) and the kind cluster
// is named after the lab, so its container is "<lab>-control-plane".
func (l *Lab) ManagementNodeName() string {
	return l.Name + "-" + string(kindconfig.ControlPlaneRole)
}

// ManagementName is the name the management cluster takes where a tenant's
// would go: its admin kubeconfig is kubeconfigs/<ManagementName>.yaml in the
// state directory, beside the tenants' kubeconfigs/<tenant>.yaml (ci/state).
const ManagementName = "management"

// The management-cluster namespaces the lab installs into (ci/stages: the
// cert-manager and Kamaji releases). A tenant's control plane lives in the
// management-cluster namespace named after the tenant (render.TenantNamespace),
// so these names are reserved for tenants.
const (
	CertManagerNamespace = "cert-manager"
	KamajiNamespace      = "kamaji-system"
)

// reservedTenantNames are the tenant names the lab itself uses, each with
// why a tenant of that name would break the lab.
var reservedTenantNames = map[string]string{
	ManagementName: "the management cluster's kubeconfig is kubeconfigs/" + ManagementName +
		".yaml in the state directory, and a tenant's admin kubeconfig (kubeconfigs/<tenant>.yaml) would overwrite it",
	CertManagerNamespace: "the lab installs cert-manager into the management-cluster namespace " + CertManagerNamespace +
		", and a tenant's control plane lives in the namespace named after the tenant",
	KamajiNamespace: "the lab installs Kamaji into the management-cluster namespace " + KamajiNamespace +
		", and a tenant's control plane lives in the namespace named after the tenant",
	// kind installs its default storage class into local-path-storage in
	// every cluster it creates (kind v0.33.0
	// pkg/build/nodeimage/const_storage.go:39, the manifest the node image
	// carries, applied by pkg/cluster/internal/create/actions/installstorage/storage.go:85).
	"local-path-storage": "kind installs its storage provisioner into the management-cluster namespace local-path-storage, " +
		"and a tenant's control plane lives in the namespace named after the tenant",
	"default": "a tenant's control plane lives in the management-cluster namespace named after the tenant, " +
		"and default is the cluster's own namespace",
}

// reservedPrefix is Kubernetes' own namespace prefix (kube-system,
// kube-public, kube-node-lease).
const reservedPrefix = "kube-"

// reservedTenant says why name cannot be a tenant's, or "" when it can.
func reservedTenant(name string) string {
	if why, ok := reservedTenantNames[name]; ok {
		return why
	}
	if strings.HasPrefix(name, reservedPrefix) {
		return "Kubernetes keeps namespaces starting with " + reservedPrefix + " for itself (kube-system, kube-public, kube-node-lease), " +
			"and a tenant's control plane lives in the management-cluster namespace named after the tenant"
	}
	return ""
}

// reservedTenantList names the reserved tenant names for the reference:
// "`cert-manager`, …, `kube-*`".
func reservedTenantList() string {
	names := make([]string, 0, len(reservedTenantNames)+1)
	for n := range reservedTenantNames {
		names = append(names, "`"+n+"`")
	}
	sort.Strings(names)
	return strings.Join(append(names, "`"+reservedPrefix+"*`"), ", ")
}
