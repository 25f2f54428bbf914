package lab

import (
	"strings"
	"testing"
)

// lab builds a lab file named name with the given tenants, each "tenant:
// worker, worker".
func labWith(name string, tenants ...string) string {
	var b strings.Builder
	b.WriteString("name: " + name + "\ntenants:\n")
	for _, t := range tenants {
		tn, workers, _ := strings.Cut(t, ":")
		b.WriteString("  - name: " + tn + "\n    workers:\n")
		for _, w := range strings.Split(workers, ",") {
			b.WriteString("      - {name: " + strings.TrimSpace(w) + ", gpus: [{model: L4, count: 1}]}\n")
		}
	}
	return b.String()
}

// TestManagementNodeName: kind names the node container of a one-node
// cluster "<cluster>-control-plane" (kind v0.33.0
// pkg/cluster/internal/providers/common/namer.go:25-36 with role
// "control-plane", pkg/apis/config/v1alpha4/types.go:161).
func TestManagementNodeName(t *testing.T) {
	if got := (&Lab{Name: "gpu-lab"}).ManagementNodeName(); got != "gpu-lab-control-plane" {
		t.Errorf("ManagementNodeName = %q", got)
	}
}

// TestNodeNamesCannotCollide: two workers never share a container, and no
// worker takes the management node's.
func TestNodeNamesCannotCollide(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{"tenant a + worker b-c and tenant a-b + worker c", labWith("gpu-lab", "a: b-c", "a-b: c"),
			[]string{
				`tenants[1].workers[0].name: Invalid value: "c": the node name "gpu-lab-a-b-c" (<lab>-<tenant>-<worker>) ` +
					`is also tenants[0].workers[0]'s: two workers would share one container; rename a tenant or a worker`}},
		{"tenant control + worker plane is the management node", labWith("gpu-lab", "control: plane"),
			[]string{`tenants[0].workers[0].name: Invalid value: "plane": ` +
				`the node name "gpu-lab-control-plane" (<lab>-<tenant>-<worker>) is the management cluster's ` +
				`node container (kind names it <lab>-control-plane); rename the tenant or the worker`}},
		{"the management node of another lab name", labWith("x", "control: plane"),
			[]string{`tenants[0].workers[0].name: Invalid value: "plane": ` +
				`the node name "x-control-plane" (<lab>-<tenant>-<worker>) is the management cluster's node ` +
				`container (kind names it <lab>-control-plane); rename the tenant or the worker`}},
		// A duplicate tenant or worker is reported once, as a duplicate,
		// not again as a node-name collision.
		{"duplicate tenant", labWith("l", "a: w", "a: w"),
			[]string{`tenants[1].name: Duplicate value: "a (also tenants[0])"`}},
		{"duplicate worker", labWith("l", "a: w, w"),
			[]string{`tenants[0].workers[1].name: Duplicate value: "w (also workers[0])"`}},
		// Too long is said once, on the worker.
		{"node name too long", labWith(strings.Repeat("l", 31), strings.Repeat("t", 31)+": w"),
			[]string{`tenants[0].workers[0].name: Invalid value: "w": the node name "` +
				strings.Repeat("l", 31) + "-" + strings.Repeat("t", 31) +
				`-w" (<lab>-<tenant>-<worker>) is 65 characters; shorten the lab, tenant or worker name to fit 63`}},
		// An invalid tenant name is its own problem, not a node name's.
		{"tenant name too long", labWith("l", strings.Repeat("t", 64)+": w"),
			[]string{`tenants[0].name: Too long: may not be more than 40 bytes`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantProblems(t, tc.src, formatYAML, tc.want...)
		})
	}
	if _, err := Parse([]byte(labWith("gpu-lab", "a: b-c", "a-c: b", "control: plane-x"))); err != nil {
		t.Errorf("distinct node names refused: %v", err)
	}
}

// TestReservedTenantNames: names the lab itself uses in the management
// cluster or the state directory are refused with the reason.
func TestReservedTenantNames(t *testing.T) {
	namespace := ", and a tenant's control plane lives in the namespace named after the tenant; choose another tenant name"
	for name, why := range map[string]string{
		"management": "the management cluster's kubeconfig is kubeconfigs/management.yaml in the state directory, " +
			"and a tenant's admin kubeconfig (kubeconfigs/<tenant>.yaml) would overwrite it; choose another tenant name",
		"cert-manager":  "the lab installs cert-manager into the management-cluster namespace cert-manager" + namespace,
		"kamaji-system": "the lab installs Kamaji into the management-cluster namespace kamaji-system" + namespace,
		"local-path-storage": "kind installs its storage provisioner into the management-cluster namespace " +
			"local-path-storage, and a tenant's control plane lives in the namespace named after the tenant; " +
			"choose another tenant name",
		"default": "a tenant's control plane lives in the management-cluster namespace named after the tenant, " +
			"and default is the cluster's own namespace; choose another tenant name",
		"kube-system": "Kubernetes keeps namespaces starting with kube- for itself (kube-system, kube-public, " +
			"kube-node-lease), and a tenant's control plane lives in the management-cluster namespace named " +
			"after the tenant; choose another tenant name",
		"kube-anything": "Kubernetes keeps namespaces starting with kube- for itself (kube-system, kube-public, " +
			"kube-node-lease), and a tenant's control plane lives in the management-cluster namespace named " +
			"after the tenant; choose another tenant name",
	} {
		t.Run(name, func(t *testing.T) {
			wantProblems(t, labWith("l", name+": w"), formatYAML, `tenants[0].name: Invalid value: "`+name+`": is reserved: `+why)
		})
	}
	for _, ok := range []string{"managements", "kube", "my-kube-x", "cert-manager-2", "tenant-default"} {
		if _, err := Parse([]byte(labWith("l", ok+": w"))); err != nil {
			t.Errorf("tenant %q refused: %v", ok, err)
		}
	}
}
