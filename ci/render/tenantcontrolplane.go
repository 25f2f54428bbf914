package render

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// Labels the lab puts on what it creates, so teardown and diagnostics find them.
const (
	LabelLab    = "gpu-lab.dev/lab"
	LabelTenant = "tenant.clastix.io"
)

// Tenant networks. Every tenant gets its own pod CIDR, 10.(100+i).0.0/16 for
// the i-th tenant, distinct from each other and from kind's 10.244.0.0/16 in
// the management cluster: tenant workers share one Docker network with the
// management node, and distinct ranges keep routes and addresses in logs
// unambiguous. Services are virtual per cluster, so every tenant keeps
// Kamaji's default service CIDR.
const (
	TenantServiceCIDR = "10.96.0.0/16"
	tenantDNSIP       = "10.96.0.10"
	tenantAPIServerIP = "10.96.0.1"
)

// KonnectivityAgentName is Kamaji's konnectivity agent DaemonSet in a
// tenant's kube-system, whose pods carry k8s-app=KonnectivityAgentName
// (Kamaji 26.8.2-edge internal/resources/konnectivity/constants.go
// AgentName and AgentNamespace; agent.go:204 sets the label). Every API
// server → worker connection, HAMi's webhook call among them, goes through
// one of these pods.
const KonnectivityAgentName = "konnectivity-agent"

// TenantPodCIDR is the pod CIDR of the i-th tenant (lab.MaxTenants fit).
func TenantPodCIDR(i int) string { return fmt.Sprintf("10.%d.0.0/16", 100+i) }

// TenantNamespace is the management-cluster namespace of a tenant's control plane.
func TenantNamespace(tenant string) string { return tenant }

// kindKubeletCgroupRoot is kind's kubelet cgroupRoot (see kindKubeletPatches).
const kindKubeletCgroupRoot = "/kubelet"

// kindKubeletPatches make Kamaji's kubelet-config fit a kindest/node worker,
// mirroring kind's own KubeletConfiguration (sigs.k8s.io/kind@v0.33.0
// pkg/cluster/internal/kubeadm/config.go, ConfigTemplateBetaV4: cgroupDriver,
// cgroupRoot: /kubelet, failSwapOn: false, imageGCHighThresholdPercent: 100,
// evictionHard at 0%): containerd in kindest/node uses the systemd cgroup
// driver, the container may see swap, and disk-pressure eviction and image
// GC would act on the host's disk. cgroupRoot /kubelet is the cgroup the
// kindest/node image prepares for its kubelet (kind v0.33.0
// images/base/files/etc/systemd/system/kubelet.service.d/11-kind.conf
// creates it on cgroup v2, the entrypoint's fix_cgroup on v1): pods go
// under it instead of the node container's root cgroup, where "kubelet will
// try to manage cgroups / pods that are not owned by it" (entrypoint).
// kind's workers get these settings the same way ours do, from the
// kubelet-config ConfigMap a join downloads.
// "add" rather than "replace": Kamaji omits an unset cgroupDriver.
//
// On a cgroup v1 host (Options.CgroupV1) they also set failCgroupV1: false,
// without which the workers' kubelet v1.36.4 refuses to start.
func kindKubeletPatches(o Options) []JSONPatch {
	p := []JSONPatch{
		{Op: "add", Path: "/cgroupDriver", Value: "systemd"},
		{Op: "add", Path: "/cgroupRoot", Value: kindKubeletCgroupRoot},
		{Op: "add", Path: "/failSwapOn", Value: false},
		{Op: "add", Path: "/imageGCHighThresholdPercent", Value: 100},
		{Op: "add", Path: "/evictionHard", Value: map[string]string{
			"nodefs.available": "0%", "nodefs.inodesFree": "0%", "imagefs.available": "0%",
		}},
	}
	if o.CgroupV1 {
		p = append(p, JSONPatch{Op: "add", Path: "/" + KubeletCgroupV1, Value: false})
	}
	return p
}

// egressSelectorFlag is the kube-apiserver flag Kamaji's konnectivity
// builder adds (Kamaji 26.8.2-edge internal/builders/controlplane/
// konnectivity_server.go:25 and :211-229, the path
// konnectivityEgressSelectorConfigurationPath).
//
// Given as the API server's extra argument, it is where Kamaji would put it
// from the start, and a new tenant's Deployment gets two revisions instead
// of three (issue 42). Kamaji writes the Deployment (controllers/
// resources.go:69) and then patches konnectivity-server into it in the same
// pass (:70), appending this flag at the end of the API server's arguments;
// its next pass sorts every argument it owns — a flag it did not write
// among them — and appends only the user's extra arguments after them
// (deployment.go:760-823, mergeAPIServerArgs), so the flag moves and the
// pod template changes once more. With a maxSurge of 100 % (the CRD
// default, tenantcontrolplane_types.go:289-292) each revision starts
// another control-plane pod on the management node's 2 cores. As an extra
// argument the flag stays last, where the builder finds it and leaves it
// (konnectivity_server.go:215-225). The lab always enables konnectivity,
// which provides the file the flag names.
const egressSelectorFlag = "--egress-selector-config-file=/etc/kubernetes/konnectivity/configurations/egress-selector-configuration.yaml"

// TenantControlPlaneFor is the named tenant's Kamaji control plane: one replica,
// a NodePort service advertised at the management node's IPv4 address, with
// the API server NodePort as networkProfile.port and the konnectivity
// NodePort as the konnectivity server port (Kamaji makes both values the
// NodePorts).
//
// Addons: CoreDNS and konnectivity from Kamaji. kube-proxy is NOT Kamaji's
// addon: in a kind-style worker, kube-proxy with kubeadm defaults tries to
// write nf_conntrack_max, which is read-only outside the initial network
// namespace, and crash-loops (Kubernetes v1.36.4
// pkg/proxy/conntrack/sysctls.go:109; kind issue 2240). Kamaji's soot
// controller owns and re-applies its kube-proxy ConfigMap (Kamaji 26.8.2-edge
// controllers/soot/controllers/kubeproxy.go:95), so the kind fix
// (conntrack.maxPerCore: 0) cannot be patched in; the lab deploys its own
// kube-proxy with that setting instead (see KubeProxy).
//
// admissionControllers is left to Kamaji's default list, which names
// MutatingAdmissionWebhook: the HAMi webhook is the lab's critical path.
func TenantControlPlaneFor(l *lab.Lab, tenant string, o Options) (*TenantControlPlane, error) {
	i, t := tenantIndex(l, tenant)
	if t == nil {
		return nil, fmt.Errorf("tenant control plane %q: no such tenant in lab %q", tenant, l.Name)
	}
	addr, err := o.managementAddress()
	if err != nil {
		return nil, fmt.Errorf("tenant control plane %q: %w", tenant, err)
	}
	labels := map[string]string{LabelTenant: t.Name, LabelLab: l.Name}
	replicas := int32(1)
	sans := append([]string{"127.0.0.1", "localhost"}, o.CertSANs...)
	return &TenantControlPlane{
		TypeMeta: metav1.TypeMeta{APIVersion: kamajiGroupVersion, Kind: "TenantControlPlane"},
		Metadata: objectMeta{Name: t.Name, Namespace: TenantNamespace(t.Name), Labels: labels},
		Spec: TCPSpec{
			DataStore: "default",
			ControlPlane: controlPlane{
				Deployment: controlPlaneDeployment{
					Replicas:           &replicas,
					ExtraArgs:          &extraArgs{APIServer: []string{egressSelectorFlag}},
					AdditionalMetadata: &additionalMetadata{Labels: labels},
				},
				Service: controlPlaneService{ServiceType: "NodePort"},
			},
			Kubernetes: KubernetesSpec{
				Version: l.Versions.Kubernetes,
				Kubelet: KubeletSpec{ConfigurationJSONPatches: kindKubeletPatches(o)},
			},
			NetworkProfile: networkProfile{
				Address:       addr,
				Port:          t.Ports.APIServer,
				CertSANs:      sans,
				ServiceCIDR:   TenantServiceCIDR,
				PodCIDR:       TenantPodCIDR(i),
				DNSServiceIPs: []string{tenantDNSIP},
			},
			Addons: Addons{
				CoreDNS: &struct{}{},
				Konnectivity: &KonnectivityAddon{
					Server: KonnectivityServer{Port: t.Ports.Konnectivity, Version: l.Versions.Konnectivity},
					Agent:  KonnectivityAgent{Version: l.Versions.Konnectivity, Mode: "DaemonSet"},
				},
			},
		},
	}, nil
}

// tenantEndpoint is where workers and clients reach a tenant API server.
func tenantEndpoint(l *lab.Lab, tenant string, o Options) (string, error) {
	_, t := tenantIndex(l, tenant)
	if t == nil {
		return "", fmt.Errorf("tenant %q: no such tenant in lab %q", tenant, l.Name)
	}
	addr, err := o.managementAddress()
	if err != nil {
		return "", fmt.Errorf("tenant %q: %w", tenant, err)
	}
	return fmt.Sprintf("https://%s:%d", addr, t.Ports.APIServer), nil
}

func tenantIndex(l *lab.Lab, name string) (int, *lab.Tenant) {
	for i := range l.Tenants {
		if l.Tenants[i].Name == name {
			return i, &l.Tenants[i]
		}
	}
	return -1, nil
}
