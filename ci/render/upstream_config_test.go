package render

import (
	"encoding/json"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	kubeproxyv1alpha1 "k8s.io/kube-proxy/config/v1alpha1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	"sigs.k8s.io/yaml"
)

// TestKubeletPatchesApplyToKubeletConfiguration applies the TCP's
// configurationJSONPatches to a KubeletConfiguration, as Kamaji does, and
// decodes the result strictly into the upstream type: a wrong path or value
// type fails here.
func TestKubeletPatchesApplyToKubeletConfiguration(t *testing.T) {
	for _, tt := range []struct {
		name     string
		o        Options
		cgroupV1 bool // failCgroupV1 set to false
	}{
		{"cgroup v2", dindOptions, false},
		{"cgroup v1", cgroupV1Options(), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			kc := patchedKubeletConfiguration(t, tt.o)
			if tt.cgroupV1 != (kc.FailCgroupV1 != nil && !*kc.FailCgroupV1) {
				t.Errorf("failCgroupV1 = %v on a cgroup v1 host = %v", kc.FailCgroupV1, tt.cgroupV1)
			}
			if !tt.cgroupV1 && kc.FailCgroupV1 != nil {
				t.Errorf("failCgroupV1 = %v set on a cgroup v2 host; leave the kubelet's default", *kc.FailCgroupV1)
			}
		})
	}
}

func patchedKubeletConfiguration(t *testing.T, o Options) kubeletv1beta1.KubeletConfiguration {
	t.Helper()
	tcp, err := TenantControlPlaneFor(testLabs(t)["default"], "tenant-a", o)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := json.Marshal(tcp.Spec.Kubernetes.Kubelet.ConfigurationJSONPatches)
	if err != nil {
		t.Fatal(err)
	}
	patch, err := jsonpatch.DecodePatch(ops)
	if err != nil {
		t.Fatal(err)
	}
	// Kamaji leaves cgroupDriver out when spec.kubernetes.kubelet.cgroupfs is unset.
	base := []byte(`{"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"KubeletConfiguration","clusterDomain":"cluster.local"}`)
	out, err := patch.Apply(base)
	if err != nil {
		t.Fatalf("apply kubelet patches: %v", err)
	}
	var kc kubeletv1beta1.KubeletConfiguration
	if err := yaml.UnmarshalStrict(out, &kc); err != nil {
		t.Fatalf("patched KubeletConfiguration: %v\n%s", err, out)
	}
	if kc.CgroupDriver != "systemd" || kc.CgroupRoot != "/kubelet" || kc.FailSwapOn == nil || *kc.FailSwapOn ||
		kc.ImageGCHighThresholdPercent == nil || *kc.ImageGCHighThresholdPercent != 100 ||
		kc.EvictionHard["nodefs.available"] != "0%" || len(kc.EvictionHard) != 3 {
		t.Errorf("patched KubeletConfiguration: %s", out)
	}
	return kc
}

// TestKubeProxyConfigIsUpstream decodes the rendered config.conf strictly
// into kube-proxy's own KubeProxyConfiguration.
func TestKubeProxyConfigIsUpstream(t *testing.T) {
	for name, l := range testLabs(t) {
		for i, tn := range l.Tenants {
			cm, ds, err := KubeProxy(l, tn.Name, dindOptions)
			if err != nil {
				t.Fatal(err)
			}
			var kp kubeproxyv1alpha1.KubeProxyConfiguration
			if err := yaml.UnmarshalStrict([]byte(cm.Data["config.conf"]), &kp); err != nil {
				t.Fatalf("%s/%s: config.conf: %v", name, tn.Name, err)
			}
			if kp.Conntrack.MaxPerCore == nil || *kp.Conntrack.MaxPerCore != 0 {
				t.Errorf("%s/%s: conntrack.maxPerCore %v, want 0 (kind workers cannot set nf_conntrack_max)", name, tn.Name, kp.Conntrack.MaxPerCore)
			}
			if kp.ClusterCIDR != TenantPodCIDR(i) || kp.Mode != "iptables" {
				t.Errorf("%s/%s: clusterCIDR %q mode %q", name, tn.Name, kp.ClusterCIDR, kp.Mode)
			}
			if img := ds.Spec.Template.Spec.Containers[0].Image; img != "registry.k8s.io/kube-proxy:"+l.Versions.Kubernetes {
				t.Errorf("%s/%s: image %s", name, tn.Name, img)
			}
		}
	}
}
