package testenv

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// checkTenantsIsolated: tenants share one etcd but see only their own
// objects; each tenant's keys live under its own prefix; and a client
// certificate of one tenant is useless against the other tenant's API
// server.
func checkTenantsIsolated(t *testing.T, e *Env) {
	ctx := context.Background()
	a, b := client(t, e, "tenant-a"), client(t, e, "tenant-b")

	for name, c := range map[string]kubernetes.Interface{"tenant-a": a, "tenant-b": b} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owned-by-" + name, Namespace: "default"}}
		if _, err := c.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = c.CoreV1().ConfigMaps("default").Delete(context.Background(), cm.Name, metav1.DeleteOptions{})
		})
	}

	for _, tc := range []struct {
		tenant, other string
		c             kubernetes.Interface
	}{{"tenant-a", "tenant-b", a}, {"tenant-b", "tenant-a", b}} {
		nodes, err := tc.c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes.Items {
			if !strings.HasPrefix(n.Name, tc.tenant+"-") {
				t.Errorf("%s sees node %s", tc.tenant, n.Name)
			}
		}
		if _, err := tc.c.CoreV1().ConfigMaps("default").Get(ctx, "owned-by-"+tc.other, metav1.GetOptions{}); err == nil {
			t.Errorf("%s sees %s's ConfigMap", tc.tenant, tc.other)
		}

		keys, err := e.etcdKeys(ctx, "/"+tc.tenant+"/")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			"/" + tc.tenant + "/minions/" + nodeName(tc.tenant, "worker"),
			"/" + tc.tenant + "/configmaps/default/owned-by-" + tc.tenant,
		} {
			if !contains(keys, want) {
				t.Errorf("etcd has no key %s (keys under /%s/: %d)", want, tc.tenant, len(keys))
			}
		}
		for _, k := range keys {
			if strings.Contains(k, tc.other) {
				t.Errorf("key %s under /%s/ names %s", k, tc.tenant, tc.other)
			}
		}
	}

	// tenant-a's admin certificate, presented to tenant-b's API server
	// (trusting tenant-b's CA so TLS gets that far), is not accepted.
	cross := e.RESTConfig("tenant-b")
	ac := e.RESTConfig("tenant-a")
	cross.TLSClientConfig = rest.TLSClientConfig{CAData: cross.CAData, CertData: ac.CertData, KeyData: ac.KeyData}
	cc, err := kubernetes.NewForConfig(cross)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cc.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err == nil {
		t.Error("tenant-b's API server accepted tenant-a's admin certificate")
	}
	// And tenant-a's CA does not verify tenant-b's serving certificate.
	wrongCA := e.RESTConfig("tenant-b")
	wrongCA.CAData = ac.CAData
	wc, err := kubernetes.NewForConfig(wrongCA)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wc.Discovery().ServerVersion(); err == nil {
		t.Error("tenant-a's CA verified tenant-b's API server certificate")
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
