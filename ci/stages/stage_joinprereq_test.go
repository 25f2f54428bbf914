package stages

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// kamajiJoinObjects are what Kamaji 26.8.2-edge's kubeadm phases leave in a
// tenant, written out by name here (not from joinPrerequisites) so a wrong
// name in the stage's list fails the tests.
func kamajiJoinObjects() []runtime.Object {
	cm := func(ns, name string) runtime.Object {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	role := func(ns, name string) []runtime.Object {
		return []runtime.Object{
			&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}},
			&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}},
		}
	}
	crb := func(name string) runtime.Object {
		return &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	objs := []runtime.Object{
		cm("kube-public", "cluster-info"), cm("kube-system", "kubeadm-config"), cm("kube-system", "kubelet-config"),
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "kubeadm:get-nodes"}},
		crb("kubeadm:get-nodes"), crb("kubeadm:kubelet-bootstrap"), crb("kubeadm:node-autoapprove-bootstrap"),
		crb("kubeadm:node-autoapprove-certificate-rotation"), crb("kubeadm:apiserver-kubelet-client"),
	}
	objs = append(objs, role("kube-public", "kubeadm:bootstrap-signer-clusterinfo")...)
	objs = append(objs, role("kube-system", "kubeadm:nodes-kubeadm-config")...)
	return append(objs, role("kube-system", "kubeadm:kubelet-config")...)
}

// seedKamajiJoinObjects puts Kamaji's join objects into a fake tenant.
func seedKamajiJoinObjects(t *testing.T, c *Clients) {
	t.Helper()
	tracker := c.Kube.(*kubefake.Clientset).Tracker()
	for _, o := range kamajiJoinObjects() {
		if err := tracker.Add(o); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMissingTenantObjects(t *testing.T) {
	ctx := context.Background()
	all := kamajiJoinObjects()
	tests := []struct {
		name    string
		objs    []runtime.Object
		missing []string
	}{
		{"everything written", all, nil},
		{"kubelet config not yet", withoutObject(all, "kubelet-config"), []string{"ConfigMap kube-system/kubelet-config"}},
		{"bootstrap RBAC not yet", withoutObject(withoutObject(all, "kubeadm:kubelet-bootstrap"), "kubeadm:get-nodes"),
			[]string{"ClusterRole kubeadm:get-nodes", "ClusterRoleBinding kubeadm:get-nodes", "ClusterRoleBinding kubeadm:kubelet-bootstrap"}},
		{"a fresh tenant", nil, names(joinPrerequisites())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The simple clientset: NewClientset's tracker builds a REST mapper of
			// the whole scheme on every call; nothing here applies server-side.
			got, err := missingTenantObjects(ctx, kubefake.NewSimpleClientset(tt.objs...), joinPrerequisites())
			if err != nil {
				t.Fatal(err)
			}
			if g := names(got); !reflect.DeepEqual(g, tt.missing) {
				t.Errorf("missing = %q, want %q", g, tt.missing)
			}
		})
	}
	denied := kubefake.NewSimpleClientset()
	denied.PrependReactor("get", "clusterrolebindings", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"}, "x",
			nil)
	})
	if _, err := missingTenantObjects(ctx, denied, joinPrerequisites()); err == nil || !strings.Contains(err.Error(), "ClusterRoleBinding") {
		t.Errorf("forbidden: err = %v, want it to name the object", err)
	}
}

func withoutObject(objs []runtime.Object, name string) []runtime.Object {
	var out []runtime.Object
	for _, o := range objs {
		if o.(metav1.Object).GetName() != name {
			out = append(out, o)
		}
	}
	return out
}

func names(objs []tenantObject) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.String())
	}
	return out
}

// TestWorkersWaitForKamajiBeforeTheToken: Kamaji writes kubelet-config a few
// polls after the stage starts looking; no bootstrap token (and so no join)
// comes before it.
func TestWorkersWaitForKamajiBeforeTheToken(t *testing.T) {
	e, w, clients := joiningEnv(t)
	tenant := "tenant-b"
	c := clients[tenant]
	fake := c.Kube.(*kubefake.Clientset)
	tracker := fake.Tracker()
	late := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kubelet-config"}}
	if err := tracker.Delete(corev1.SchemeGroupVersion.WithResource("configmaps"), "kube-system", "kubelet-config"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	polls := 0
	fake.PrependReactor("get", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.(k8stesting.GetAction).GetName() != "kubelet-config" {
			return false, nil, nil
		}
		mu.Lock()
		defer mu.Unlock()
		if polls++; polls == 3 {
			_ = tracker.Add(late) // Kamaji's PhaseUploadConfigKubelet finishes
		}
		return false, nil, nil
	})
	var tokenBeforeKamaji bool
	fake.PrependReactor("create", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		if _, err := tracker.Get(corev1.SchemeGroupVersion.WithResource("configmaps"), "kube-system", "kubelet-config"); err != nil {
			tokenBeforeKamaji = true
		}
		return false, nil, nil
	})
	if _, err := (workersStage{}).Run(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	if tokenBeforeKamaji {
		t.Error("a bootstrap token was created before Kamaji wrote kubelet-config")
	}
	if polls < 3 {
		t.Errorf("kubelet-config read %d times, want the stage to wait for it", polls)
	}
	if !strings.Contains(strings.Join(w.steps, "\n"), e.Lab.NodeName(tenant, "worker")+" kubeadm join") {
		t.Errorf("%s never joined: %v", tenant, w.steps)
	}
}
