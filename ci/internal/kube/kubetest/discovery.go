package kubetest

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	fakediscovery "k8s.io/client-go/discovery/fake"
)

// Resource is one entry a fake discovery serves.
type Resource struct {
	GVR        schema.GroupVersionResource
	Kind       string
	Namespaced bool
}

// Builtin are the built-in resources the lab applies (plural and scope as
// every Kubernetes API server serves them).
var Builtin = []Resource{
	{schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, "Namespace", false},
	{schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, "ConfigMap", true},
	{schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, "ServiceAccount", true},
	{schema.GroupVersionResource{Version: "v1", Resource: "services"}, "Service", true},
	{schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, "Secret", true},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, "Deployment", true},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}, "DaemonSet", true},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}, "ClusterRole", false},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"},
		"ClusterRoleBinding", false},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}, "Role", true},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}, "RoleBinding", true},
}

// Serve makes a fake clientset's discovery list the resources (a
// clientset's Discovery() is a *fakediscovery.FakeDiscovery).
func Serve(d discovery.DiscoveryInterface, rs ...Resource) {
	fd := d.(*fakediscovery.FakeDiscovery)
	byGV := map[string]*metav1.APIResourceList{}
	for _, r := range rs {
		gv := r.GVR.GroupVersion().String()
		l := byGV[gv]
		if l == nil {
			l = &metav1.APIResourceList{GroupVersion: gv}
			byGV[gv] = l
			fd.Resources = append(fd.Resources, l)
		}
		l.APIResources = append(l.APIResources, metav1.APIResource{
			Name: r.GVR.Resource, Kind: r.Kind, Namespaced: r.Namespaced,
			Verbs: metav1.Verbs{"get", "list", "watch", "create", "update", "patch", "delete"},
		})
	}
}
