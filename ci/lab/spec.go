package lab

// apiVersion and kind identify a lab file; both are optional in the file and
// checked when present, so a file written for a future schema fails loudly.
const (
	apiVersion = "gpu-lab.dev/v1alpha1"
	kind       = "Lab"
)

// Lab is one lab: a management cluster hosting one control plane per tenant,
// and per tenant one or more workers with simulated GPUs.
type Lab struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	// Name prefixes every container, network and cluster the lab creates.
	Name string `json:"name"`
	// Versions overrides pinned versions; empty fields take DefaultVersions.
	Versions Versions `json:"versions,omitempty"`
	// HAMi holds the settings the lab passes to HAMi's scheduler.
	HAMi HAMi `json:"hami,omitempty"`
	// Tenants are the tenant control planes, each with its own workers.
	Tenants []Tenant `json:"tenants"`
}

// Tenant is one Kamaji TenantControlPlane and its workers.
type Tenant struct {
	// Name is a DNS-1123 label; it names the TenantControlPlane and its namespace.
	Name string `json:"name"`
	// Ports are the NodePorts of the tenant API server and konnectivity server;
	// zero values are allocated automatically.
	Ports Ports `json:"ports,omitempty"`
	// Workers are the tenant's worker nodes.
	Workers []Worker `json:"workers"`
}

// Ports are NodePorts on the management cluster (30000–32767).
type Ports struct {
	APIServer    int32 `json:"apiServer,omitempty"`
	Konnectivity int32 `json:"konnectivity,omitempty"`
}

// Worker is one tenant worker node (a kind-style container in the real lab,
// a KWOK node in the local test environment).
type Worker struct {
	// Name is a DNS-1123 label, unique within its tenant.
	Name string `json:"name"`
	// GPUs lists the simulated cards, grouped by model.
	GPUs []GPUGroup `json:"gpus"`
}

// GPUGroup is Count identical cards of one model on a worker.
type GPUGroup struct {
	// Model is a catalog name (see Catalog) or "custom".
	Model string `json:"model"`
	// Count is the number of cards of this model (at least 1).
	Count int `json:"count"`
	// MemoryMB overrides the catalog memory; required for a custom model.
	MemoryMB int `json:"memoryMB,omitempty"`
	// Type is HAMi's device type string; required for a custom model and must
	// contain "NVIDIA" (HAMi ignores cards whose type does not).
	Type string `json:"type,omitempty"`
}

// HAMi holds lab-wide settings for HAMi.
type HAMi struct {
	// SplitCount is how many pods may share one card (HAMi deviceSplitCount); default 10.
	SplitCount int `json:"splitCount,omitempty"`
	// NodeLockTimeout is HAMi's --node-lock-timeout (a Go duration); default "5m".
	NodeLockTimeout string `json:"nodeLockTimeout,omitempty"`
	// KubeQPS and KubeBurst are HAMi's --kube-qps and --kube-burst, the
	// client-side rate limit of the scheduler extender's own API calls.
	KubeQPS   int `json:"kubeQPS,omitempty"`
	KubeBurst int `json:"kubeBurst,omitempty"`
	// PodInitialBackoffSeconds and PodMaxBackoffSeconds are the
	// KubeSchedulerConfiguration fields of HAMi's kube-scheduler: how soon a
	// pod whose bind lost the node lock is retried.
	PodInitialBackoffSeconds int `json:"podInitialBackoffSeconds,omitempty"`
	PodMaxBackoffSeconds     int `json:"podMaxBackoffSeconds,omitempty"`
}
