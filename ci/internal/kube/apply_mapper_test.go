package kube

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gpu-lab/gpu-lab/ci/internal/kube/kubetest"
)

// Endpoints is a built-in kind whose plural is not its kind plus "s" or
// "es": the API server registers it as "endpoints" (Kubernetes v1.36.4
// pkg/registry/core/rest/storage_core.go:294); the old guess knew it only
// by a special case in meta.UnsafeGuessKindToResource.
var endpointsGVR = schema.GroupVersionResource{Version: "v1", Resource: "endpoints"}

// mouse is a CRD kind whose plural is whatever its CRD says; the old guess
// would have sent it to "mouses".
var mouseGVR = schema.GroupVersionResource{Group: "example.test", Version: "v1", Resource: "mice"}

func mouse(ns string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.test/v1", "kind": "Mouse",
		"metadata": map[string]any{"name": "m", "namespace": ns}}}
}

func TestApplyFindsThePluralByDiscovery(t *testing.T) {
	ctx := context.Background()
	dyn, disc, _ := fakeCluster(
		kubetest.Resource{GVR: endpointsGVR, Kind: "Endpoints", Namespaced: true},
		kubetest.Resource{GVR: mouseGVR, Kind: "Mouse", Namespaced: true},
	)
	a := NewApplier(dyn, disc)
	ep := &corev1.Endpoints{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Endpoints"},
		ObjectMeta: metav1.ObjectMeta{Name: "ep", Namespace: "lab"}}
	if err := a.ApplyAll(ctx, ep, mouse("lab")); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, act := range dyn.Actions() {
		got = append(got, act.GetResource().Resource)
	}
	if strings.Join(got, ",") != "endpoints,mice" {
		t.Errorf("applied to resources %v, want [endpoints mice] as discovery serves them", got)
	}
	if _, err := dyn.Resource(mouseGVR).Namespace("lab").Get(ctx, "m", metav1.GetOptions{}); err != nil {
		t.Errorf("the Mouse is not stored under %s: %v", mouseGVR, err)
	}
}

// A CRD installed after the Applier first read discovery (Kamaji's chart,
// then a TenantControlPlane) is found by asking again.
func TestApplyRereadsDiscoveryForAKindInstalledSince(t *testing.T) {
	ctx := context.Background()
	dyn, disc, _ := fakeCluster(kubetest.Builtin...)
	a := NewApplier(dyn, disc)
	if _, err := a.Apply(ctx, labConfigMap()); err != nil {
		t.Fatal(err)
	}
	kubetest.Serve(disc, kubetest.Resource{GVR: mouseGVR, Kind: "Mouse", Namespaced: true})
	if _, err := a.Apply(ctx, mouse("lab")); err != nil {
		t.Fatalf("a kind served since the first discovery: %v", err)
	}
}

func TestApplyErrors(t *testing.T) {
	ctx := context.Background()
	dyn, disc, _ := fakeCluster(kubetest.Builtin...)
	a := NewApplier(dyn, disc)
	for _, tc := range []struct {
		name string
		obj  any
		want string
	}{
		{"kind nobody serves", mouse("lab"), "Mouse lab/m: find the API resource of example.test/v1, Kind=Mouse"},
		{"namespaced without namespace", &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: "cfg"}}, "ConfigMap cfg: ConfigMap is namespaced but the object names no namespace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := a.Apply(ctx, tc.obj)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
