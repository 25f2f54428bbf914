package render

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Kamaji's Go module is not served to this project (UPSTREAM-FACTS.md §1), so the
// TenantControlPlane is a local struct holding only the fields the lab sets,
// with Kamaji's JSON names (kamaji.clastix.io/v1alpha1: Kamaji 26.8.2-edge
// api/v1alpha1/groupversion_info.go:17, fields in tenantcontrolplane_types.go).

// kamajiGroupVersion is the TenantControlPlane API version.
const kamajiGroupVersion = "kamaji.clastix.io/v1alpha1"

// TenantControlPlane is a Kamaji tenant control plane.
type TenantControlPlane struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        objectMeta `json:"metadata"`
	Spec            TCPSpec    `json:"spec"`
}

// objectMeta is the metadata the lab writes (metav1.ObjectMeta would render
// server-owned fields such as creationTimestamp).
type objectMeta struct {
	Name      string            `json:"name"`
	Namespace string            `json:"namespace,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
}

// TCPSpec is spec of a TenantControlPlane.
type TCPSpec struct {
	DataStore      string         `json:"dataStore,omitempty"`
	ControlPlane   controlPlane   `json:"controlPlane"`
	Kubernetes     KubernetesSpec `json:"kubernetes"`
	NetworkProfile networkProfile `json:"networkProfile"`
	Addons         Addons         `json:"addons"`
}

// controlPlane is spec.controlPlane.
type controlPlane struct {
	Deployment controlPlaneDeployment `json:"deployment"`
	Service    controlPlaneService    `json:"service"`
}

// controlPlaneDeployment is spec.controlPlane.deployment.
type controlPlaneDeployment struct {
	Replicas           *int32              `json:"replicas,omitempty"`
	ExtraArgs          *extraArgs          `json:"extraArgs,omitempty"`
	AdditionalMetadata *additionalMetadata `json:"additionalMetadata,omitempty"`
}

// extraArgs is spec.controlPlane.deployment.extraArgs (Kamaji 26.8.2-edge
// api/v1alpha1/tenantcontrolplane_types.go ControlPlaneExtraArgs).
type extraArgs struct {
	APIServer []string `json:"apiServer,omitempty"`
}

// additionalMetadata adds labels and annotations to Kamaji-owned objects.
type additionalMetadata struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// controlPlaneService is spec.controlPlane.service; serviceType is required.
type controlPlaneService struct {
	ServiceType string `json:"serviceType"`
}

// KubernetesSpec is spec.kubernetes; version and kubelet are required.
type KubernetesSpec struct {
	Version              string      `json:"version"`
	Kubelet              KubeletSpec `json:"kubelet"`
	AdmissionControllers []string    `json:"admissionControllers,omitempty"`
}

// KubeletSpec is spec.kubernetes.kubelet.
type KubeletSpec struct {
	// ConfigurationJSONPatches are RFC 6902 operations Kamaji applies to the
	// KubeletConfiguration it uploads as the tenant's kubelet-config.
	ConfigurationJSONPatches []JSONPatch `json:"configurationJSONPatches,omitempty"`
}

// JSONPatch is one RFC 6902 operation.
type JSONPatch struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// networkProfile is spec.networkProfile.
type networkProfile struct {
	Address       string   `json:"address"`
	Port          int32    `json:"port"`
	CertSANs      []string `json:"certSANs,omitempty"`
	ServiceCIDR   string   `json:"serviceCidr,omitempty"`
	PodCIDR       string   `json:"podCidr,omitempty"`
	DNSServiceIPs []string `json:"dnsServiceIPs,omitempty"`
}

// Addons is spec.addons. A nil pointer leaves the addon out.
type Addons struct {
	CoreDNS      *struct{}          `json:"coreDNS,omitempty"`
	KubeProxy    *struct{}          `json:"kubeProxy,omitempty"`
	Konnectivity *KonnectivityAddon `json:"konnectivity,omitempty"`
}

// KonnectivityAddon is spec.addons.konnectivity.
type KonnectivityAddon struct {
	Server KonnectivityServer `json:"server"`
	Agent  KonnectivityAgent  `json:"agent"`
}

// KonnectivityServer is spec.addons.konnectivity.server; port is required.
type KonnectivityServer struct {
	Port    int32  `json:"port"`
	Version string `json:"version,omitempty"`
}

// KonnectivityAgent is spec.addons.konnectivity.agent.
type KonnectivityAgent struct {
	Version string `json:"version,omitempty"`
	Mode    string `json:"mode,omitempty"`
}
