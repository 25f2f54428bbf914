package manifests

import (
	"bytes"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// TestStaticManifestsDecodeStrictly: every embedded document is a known
// upstream type with no unknown field.
func TestStaticManifestsDecodeStrictly(t *testing.T) {
	names := Names()
	if len(names) == 0 {
		t.Fatal("no static manifests embedded")
	}
	for _, n := range names {
		b, err := Read(n)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range bytes.Split(b, []byte("\n---\n")) {
			var tm struct{ APIVersion, Kind string }
			if err := yaml.Unmarshal(doc, &tm); err != nil {
				t.Fatalf("%s[%d]: %v", n, i, err)
			}
			var into any
			switch tm.APIVersion + "/" + tm.Kind {
			case "v1/ServiceAccount":
				into = &corev1.ServiceAccount{}
			case "rbac.authorization.k8s.io/v1/ClusterRoleBinding":
				into = &rbacv1.ClusterRoleBinding{}
			default:
				t.Fatalf("%s[%d]: %s/%s: add its upstream type to this test", n, i, tm.APIVersion, tm.Kind)
			}
			if err := yaml.UnmarshalStrict(doc, into); err != nil {
				t.Errorf("%s[%d]: %v", n, i, err)
			}
		}
	}
	if _, err := Read(TenantKubeProxyRBAC); err != nil {
		t.Error(err)
	}
	if _, err := Read("nope.yaml"); err == nil {
		t.Error("reading a missing manifest gave no error")
	}
}
