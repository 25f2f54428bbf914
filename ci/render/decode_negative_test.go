package render

import "testing"

// TestDecodeStrictRejects proves the decoding test can fail: a misspelt or
// misplaced field in any rendered kind is an error.
func TestDecodeStrictRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"kind typo":      "apiVersion: kind.x-k8s.io/v1alpha4\nkind: Cluster\nnetworking:\n  apiServerAdress: 0.0.0.0\n",
		"kind bad patch": "apiVersion: kind.x-k8s.io/v1alpha4\nkind: Cluster\nkubeadmConfigPatches:\n- |\n  kind: InitConfiguration\n",
		"tcp unknown": "apiVersion: kamaji.clastix.io/v1alpha1\nkind: TenantControlPlane\nmetadata: {name: a}\nspec:\n" +
			"  networkProfile: {adress: 1.2.3.4}\n",
		"tcp missing": "apiVersion: kamaji.clastix.io/v1alpha1\nkind: TenantControlPlane\nmetadata: {name: a}\nspec:\n" +
			"  kubernetes: {version: v1.36.4, kubelet: {}}\n",
		"daemonset field": "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: a}\nspec:\n  replicas: 1\n",
		"node no capacity": "apiVersion: v1\nkind: Node\nmetadata: {name: a, labels: {gpu: 'on'}, annotations: " +
			"{hami.io/node-nvidia-register: '[]'}}\n",
		"hami old key":     "scheduler:\n  kubeScheduler:\n    imageTag: v1.36.4\n",
		"hami unknown key": "scheduler:\n  nodeLockTimeout: 5m\n",
		"unknown kind":     "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n",
	} {
		if _, err := decodeStrict([]byte(doc)); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
}
