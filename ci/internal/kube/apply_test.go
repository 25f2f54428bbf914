package kube

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/gpu-lab/gpu-lab/ci/internal/kube/kubetest"
)

var configMapGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

func fakeCluster(rs ...kubetest.Resource) (*dynamicfake.FakeDynamicClient, *fakediscovery.FakeDiscovery, *kubetest.Applies) {
	dyn := dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())
	rec := kubetest.ReactToApply(dyn)
	disc := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{}}
	kubetest.Serve(disc, rs...)
	return dyn, disc, rec
}

// labConfigMap is what a stage renders: its own labels and data only.
func labConfigMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "cfg", Namespace: "lab", Labels: map[string]string{"app": "lab"}},
		Data:       map[string]string{"k": "v2"},
	}
}

// addedByController is what a controller does to the object between two
// runs of a stage: a label, an annotation and a finalizer of its own.
func addedByController(t *testing.T, dyn *dynamicfake.FakeDynamicClient) {
	t.Helper()
	ctx := context.Background()
	cur, err := dyn.Resource(configMapGVR).Namespace("lab").Get(ctx, "cfg", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.SetLabels(map[string]string{"app": "lab", "controller/owned": "yes"})
	cur.SetAnnotations(map[string]string{"controller/seen": "1"})
	cur.SetFinalizers([]string{"controller/cleanup"})
	if _, err := dyn.Resource(configMapGVR).Namespace("lab").Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func hasControllerFields(u *unstructured.Unstructured) bool {
	return u.GetLabels()["controller/owned"] == "yes" && u.GetAnnotations()["controller/seen"] == "1" &&
		len(u.GetFinalizers()) == 1 && u.GetFinalizers()[0] == "controller/cleanup"
}

// A stage that runs again re-applies its objects: what a controller added
// since must survive, and the lab's own change must land.
func TestReapplyKeepsWhatControllersAdded(t *testing.T) {
	ctx := context.Background()
	dyn, disc, rec := fakeCluster(kubetest.Builtin...)
	a := NewApplier(dyn, disc)
	first := labConfigMap()
	first.Data["k"] = "v1"
	if _, err := a.Apply(ctx, first); err != nil {
		t.Fatal(err)
	}
	addedByController(t, dyn)
	dyn.ClearActions()

	out, err := a.Apply(ctx, labConfigMap())
	if err != nil {
		t.Fatal(err)
	}
	if !hasControllerFields(out) {
		t.Errorf("re-apply dropped what the controller added: labels %v annotations %v finalizers %v",
			out.GetLabels(), out.GetAnnotations(), out.GetFinalizers())
	}
	if got, _, _ := unstructured.NestedString(out.Object, "data", "k"); got != "v2" {
		t.Errorf("data.k = %q after re-apply, want the lab's v2", got)
	}
	for _, act := range dyn.Actions() {
		if v := act.GetVerb(); v != "patch" {
			t.Errorf("re-apply sent a %s (only an apply patch leaves others' fields alone)", v)
		}
	}
	reqs := rec.List()
	if len(reqs) != 2 {
		t.Fatalf("%d apply requests, want 2 (one per Apply)", len(reqs))
	}
	last := reqs[1]
	if last.FieldManager != fieldManager || !last.Force {
		t.Errorf("apply as %q force=%v, want %q force=true", last.FieldManager, last.Force, fieldManager)
	}
	if _, ok := last.Object.GetLabels()["controller/owned"]; ok {
		t.Errorf("the apply request claims the controller's label: %v", last.Object.GetLabels())
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(last.Object.Object, "metadata", "creationTimestamp"); found {
		t.Error("the apply request carries creationTimestamp: null from the typed object")
	}
}

// The defect server-side apply fixes: the create-or-update Apply did
// before (GET, then Update of the whole rendered object) replaces the
// object, so the controller's fields are gone after a re-run.
func TestWholeObjectUpdateDropsWhatControllersAdded(t *testing.T) {
	ctx := context.Background()
	dyn, disc, _ := fakeCluster(kubetest.Builtin...)
	if _, err := NewApplier(dyn, disc).Apply(ctx, labConfigMap()); err != nil {
		t.Fatal(err)
	}
	addedByController(t, dyn)

	ri := dyn.Resource(configMapGVR).Namespace("lab")
	cur, err := ri.Get(ctx, "cfg", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u, err := ToUnstructured(labConfigMap())
	if err != nil {
		t.Fatal(err)
	}
	u.SetResourceVersion(cur.GetResourceVersion())
	out, err := ri.Update(ctx, u, metav1.UpdateOptions{FieldManager: "labctl"})
	if err != nil {
		t.Fatal(err)
	}
	if hasControllerFields(out) {
		t.Fatalf("a whole-object update kept the controller's fields (%v): the defect this replaced is not shown", out.GetLabels())
	}
}
