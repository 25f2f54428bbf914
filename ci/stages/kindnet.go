package stages

import (
	"bytes"
	"fmt"
	"strings"
	"text/template"

	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// kindnetManifestPath is where every kindest/node image keeps its CNI
// manifest (kindnetd, image preloaded).
const kindnetManifestPath = "/kind/manifests/default-cni.yaml"

// kindnetObjects turns the node image's CNI manifest into the tenant's
// objects the way kind does for its own clusters (installcni action): fill
// {{ .PodSubnet }} with the tenant's pod CIDR, and give the DaemonSet
// CONTROL_PLANE_ENDPOINT (host:port) so kindnetd reaches the API server
// without waiting for kube-proxy.
func kindnetObjects(raw []byte, podSubnet, controlPlaneEndpoint string) ([]*unstructured.Unstructured, error) {
	manifest := raw
	if bytes.Contains(raw, []byte("{{")) {
		t, err := template.New("cni").Option("missingkey=error").Parse(string(raw))
		if err != nil {
			return nil, fmt.Errorf("kindnet manifest template: %w", err)
		}
		var out bytes.Buffer
		if err := t.Execute(&out, struct{ PodSubnet string }{podSubnet}); err != nil {
			return nil, fmt.Errorf("kindnet manifest template: %w (the node image's manifest changed: check %s)", err, kindnetManifestPath)
		}
		manifest = out.Bytes()
	}
	objs, err := kube.DecodeManifests(manifest)
	if err != nil {
		return nil, fmt.Errorf("kindnet manifest: %w", err)
	}
	found := false
	for _, o := range objs {
		if o.GetKind() != "DaemonSet" {
			continue
		}
		found = true
		containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
		if len(containers) == 0 {
			return nil, fmt.Errorf("kindnet DaemonSet %s has no containers", o.GetName())
		}
		c := containers[0].(map[string]any)
		env, _ := c["env"].([]any)
		kept := env[:0]
		for _, e := range env {
			if m, ok := e.(map[string]any); ok && m["name"] == "CONTROL_PLANE_ENDPOINT" {
				continue
			}
			kept = append(kept, e)
		}
		c["env"] = append(kept, map[string]any{"name": "CONTROL_PLANE_ENDPOINT", "value": controlPlaneEndpoint})
		containers[0] = c
		if err := unstructured.SetNestedSlice(o.Object, containers, "spec", "template", "spec", "containers"); err != nil {
			return nil, err
		}
	}
	if !found {
		return nil, fmt.Errorf("kindnet manifest has no DaemonSet (kinds: %s)", kinds(objs))
	}
	return objs, nil
}

func kinds(objs []*unstructured.Unstructured) string {
	var ks []string
	for _, o := range objs {
		ks = append(ks, o.GetKind())
	}
	return strings.Join(ks, ", ")
}
