package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/tools/clientcmd"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	kind "sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// TestDecodeUpstream decodes every rendered document strictly into the type
// its consumer uses, so a misspelt or misplaced field fails here instead of
// being ignored by kind, the API server or helm.
func TestDecodeUpstream(t *testing.T) {
	for name, l := range testLabs(t) {
		for optName, o := range map[string]Options{"dind": dindOptions, "dind on cgroup v1": cgroupV1Options()} {
			decodeAll(t, name+" ("+optName+")", l, o)
		}
	}
}

func decodeAll(t *testing.T, name string, l *lab.Lab, o Options) {
	t.Helper()
	files, err := All(l, o)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, f := range files {
		for i, doc := range splitDocs(f.Data) {
			kindName, err := decodeStrict(doc)
			if err != nil {
				t.Errorf("%s: %s document %d: %v", name, f.Name, i, err)
				continue
			}
			seen[kindName]++
		}
	}
	tenants := len(l.Tenants)
	want := map[string]int{
		"kind.x-k8s.io/v1alpha4/Cluster":                  1,
		"v1/Namespace":                                    tenants,
		kamajiGroupVersion + "/TenantControlPlane":        tenants,
		"v1/ServiceAccount":                               tenants,
		"rbac.authorization.k8s.io/v1/ClusterRoleBinding": tenants,
		"v1/ConfigMap":                                    2 * tenants, // kube-proxy's, nvml-mock's
		"apps/v1/DaemonSet":                               2 * tenants,
		"hami-values":                                     tenants,
		"admissionregistration.k8s.io/v1/MutatingAdmissionPolicy":        1,
		"admissionregistration.k8s.io/v1/MutatingAdmissionPolicyBinding": 1,
	}
	for k, n := range want {
		if seen[k] != n {
			t.Errorf("%s: rendered %d %s, want %d", name, seen[k], k, n)
		}
	}
}

func splitDocs(b []byte) [][]byte {
	var out [][]byte
	for _, d := range bytes.Split(b, []byte("\n---\n")) {
		if len(bytes.TrimSpace(d)) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// decodeStrict decodes one document by its apiVersion and kind and returns
// "<apiVersion>/<kind>" ("hami-values" for the helm values file).
func decodeStrict(doc []byte) (string, error) {
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return "", err
	}
	id := tm.APIVersion + "/" + tm.Kind
	strict := func(into any) error { return yaml.UnmarshalStrict(doc, into) }
	switch id {
	case "kind.x-k8s.io/v1alpha4/Cluster":
		// As kind itself loads a config file: yaml.v3 with KnownFields.
		d := yamlv3.NewDecoder(bytes.NewReader(doc))
		d.KnownFields(true)
		var c kind.Cluster
		if err := d.Decode(&c); err != nil {
			return id, err
		}
		for _, p := range c.KubeadmConfigPatches {
			var m map[string]any
			if err := yaml.UnmarshalStrict([]byte(p), &m); err != nil {
				return id, fmt.Errorf("kubeadm patch %q: %w", p, err)
			}
			switch m["kind"] {
			case "ClusterConfiguration":
			case "KubeletConfiguration":
				// kind merges it into its KubeletConfiguration
				// document: every field must be the kubelet's.
				var kc kubeletv1beta1.KubeletConfiguration
				if err := yaml.UnmarshalStrict([]byte(p), &kc); err != nil {
					return id, fmt.Errorf("kubeadm patch %q: %w", p, err)
				}
			default:
				return id, fmt.Errorf("kubeadm patch %q: want a ClusterConfiguration or KubeletConfiguration patch", p)
			}
		}
		return id, nil
	case "v1/Namespace":
		return id, strict(&corev1.Namespace{})
	case "v1/ServiceAccount":
		return id, strict(&corev1.ServiceAccount{})
	case "rbac.authorization.k8s.io/v1/ClusterRoleBinding":
		return id, strict(&rbacv1.ClusterRoleBinding{})
	case "apps/v1/DaemonSet":
		return id, strict(&appsv1.DaemonSet{})
	case "admissionregistration.k8s.io/v1/MutatingAdmissionPolicy":
		var p admissionregistrationv1.MutatingAdmissionPolicy
		if err := strict(&p); err != nil {
			return id, err
		}
		return id, checkMutatingPolicy(&p)
	case "admissionregistration.k8s.io/v1/MutatingAdmissionPolicyBinding":
		var b admissionregistrationv1.MutatingAdmissionPolicyBinding
		if err := strict(&b); err != nil {
			return id, err
		}
		if b.Spec.PolicyName == "" || b.Spec.MatchResources == nil {
			return id, fmt.Errorf("binding %q: want policyName and matchResources", b.Name)
		}
		return id, nil
	case "v1/Node":
		var n corev1.Node
		if err := strict(&n); err != nil {
			return id, err
		}
		return id, checkNode(&n)
	case "v1/ConfigMap":
		var cm corev1.ConfigMap
		if err := strict(&cm); err != nil {
			return id, err
		}
		if cm.Name == NVMLMockName {
			return id, checkNVMLMockConfigMap(&cm)
		}
		return id, checkKubeProxyConfigMap(&cm)
	case kamajiGroupVersion + "/TenantControlPlane":
		var tcp TenantControlPlane
		if err := strict(&tcp); err != nil {
			return id, err
		}
		return id, checkTCPRequired(&tcp)
	case "/":
		var v HAMiValues
		if err := strict(&v); err != nil {
			return "hami-values", err
		}
		return "hami-values", checkHAMiKeys(doc)
	}
	return id, fmt.Errorf("no upstream type known for %s: add one to decodeStrict", id)
}

// checkMutatingPolicy checks what the API server requires of a policy
// (k8s.io/api@v0.36.3 admissionregistration/v1 types.go: matchConstraints,
// reinvocationPolicy "Required", at least one mutation with its patchType's
// expression).
func checkMutatingPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy) error {
	s := p.Spec
	if s.MatchConstraints == nil || len(s.MatchConstraints.ResourceRules) == 0 || s.ReinvocationPolicy == "" || len(s.Mutations) == 0 {
		return fmt.Errorf("policy %q: want matchConstraints, reinvocationPolicy and mutations", p.Name)
	}
	for i, m := range s.Mutations {
		switch {
		case m.PatchType == admissionregistrationv1.PatchTypeApplyConfiguration && m.ApplyConfiguration != nil &&
			m.ApplyConfiguration.Expression != "":
		case m.PatchType == admissionregistrationv1.PatchTypeJSONPatch && m.JSONPatch != nil && m.JSONPatch.Expression != "":
		default:
			return fmt.Errorf("policy %q: mutation %d has no expression of its patchType %q", p.Name, i, m.PatchType)
		}
	}
	return nil
}

func checkNode(n *corev1.Node) error {
	if n.Name == "" || n.Annotations["hami.io/node-nvidia-register"] == "" || n.Labels["gpu"] != "on" {
		return fmt.Errorf("node %q: want name, hami.io/node-nvidia-register and gpu=on", n.Name)
	}
	if q, ok := n.Status.Capacity["nvidia.com/gpu"]; !ok || q.Value() < 1 {
		return fmt.Errorf("node %q: want status.capacity nvidia.com/gpu > 0", n.Name)
	}
	return nil
}

func checkKubeProxyConfigMap(cm *corev1.ConfigMap) error {
	kc, err := clientcmd.Load([]byte(cm.Data["kubeconfig.conf"]))
	if err != nil {
		return fmt.Errorf("kubeconfig.conf: %w", err)
	}
	if c := kc.Clusters[kc.Contexts[kc.CurrentContext].Cluster]; c == nil || !strings.HasPrefix(c.Server, "https://") {
		return fmt.Errorf("kubeconfig.conf: current context has no https server")
	}
	var cfg map[string]any
	if err := yaml.Unmarshal([]byte(cm.Data["config.conf"]), &cfg); err != nil {
		return fmt.Errorf("config.conf: %w", err)
	}
	if cfg["kind"] != "KubeProxyConfiguration" {
		return fmt.Errorf("config.conf: kind %v", cfg["kind"])
	}
	return nil
}

// checkTCPRequired checks the fields Kamaji's CRD requires (Kamaji 26.8.2-edge
// charts/kamaji/crds/kamaji.clastix.io_tenantcontrolplanes.yaml:8371,8556-8557:
// serviceType, kubelet, version), and the ones a NodePort tenant needs to
// progress (Kamaji issue 432).
func checkTCPRequired(tcp *TenantControlPlane) error {
	var missing []string
	s := tcp.Spec
	if s.ControlPlane.Service.ServiceType == "" {
		missing = append(missing, "spec.controlPlane.service.serviceType")
	}
	if s.Kubernetes.Version == "" {
		missing = append(missing, "spec.kubernetes.version")
	}
	if s.NetworkProfile.Address == "" {
		missing = append(missing, "spec.networkProfile.address")
	}
	if s.Addons.Konnectivity == nil || s.Addons.Konnectivity.Server.Port == 0 {
		missing = append(missing, "spec.addons.konnectivity.server.port")
	}
	if len(missing) > 0 {
		return fmt.Errorf("TenantControlPlane %s: missing %v", tcp.Metadata.Name, missing)
	}
	return nil
}
