package pullpolicy

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// TestApplyInstallsThenUpdates: the policy and its binding are created,
// then updated in place on the next Apply; Installed sees them only once
// both exist.
func TestApplyInstallsThenUpdates(t *testing.T) {
	ctx := context.Background()
	l := lab.Default()
	kube := fake.NewClientset()
	if ok, err := Installed(ctx, kube, l); ok || err != nil {
		t.Fatalf("Installed before Apply = %v, %v; want false, nil", ok, err)
	}
	for i := range 2 {
		policy, binding := render.BundlePullPolicyObjects(l)
		if err := Apply(ctx, kube, policy, binding); err != nil {
			t.Fatalf("Apply #%d: %v", i+1, err)
		}
	}
	if ok, err := Installed(ctx, kube, l); !ok || err != nil {
		t.Fatalf("Installed after Apply = %v, %v; want true, nil", ok, err)
	}
	var verbs []string
	for _, a := range kube.Actions() {
		if a.GetResource().Resource == "mutatingadmissionpolicies" && a.GetVerb() != "get" {
			verbs = append(verbs, a.GetVerb())
		}
	}
	if strings.Join(verbs, ",") != "create,update" {
		t.Errorf("policy writes = %q, want a create then an update", verbs)
	}
}

// TestProbe: the dry-run pod says whether the API server applies the
// policy; a failed create names the pod.
func TestProbe(t *testing.T) {
	for _, tt := range []struct {
		name     string
		mutate   bool
		err      error
		wantOK   bool
		wantText string
	}{
		{"not loaded yet", false, nil, false, "still asks imagePullPolicy Always"},
		{"in force", true, nil, true, "comes back imagePullPolicy IfNotPresent"},
		{"refused", false, errors.New("namespaces \"t\" not found"), false, "dry-run pod t/" + ProbeName},
	} {
		t.Run(tt.name, func(t *testing.T) {
			kube := fake.NewClientset()
			kube.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
				ca := a.(k8stesting.CreateActionImpl)
				if len(ca.CreateOptions.DryRun) != 1 || ca.CreateOptions.DryRun[0] != metav1.DryRunAll {
					t.Errorf("the probe pod was created for real: %+v", ca.CreateOptions)
				}
				if tt.err != nil {
					return true, nil, tt.err
				}
				pod := ca.GetObject().(*corev1.Pod).DeepCopy()
				if tt.mutate {
					pod.Spec.Containers[0].ImagePullPolicy = corev1.PullIfNotPresent
				}
				return true, pod, nil
			})
			ok, cond, err := Probe(context.Background(), kube, "t")
			text := cond
			if err != nil {
				text = err.Error()
			}
			if ok != tt.wantOK || (err != nil) != (tt.err != nil) || !strings.Contains(text, tt.wantText) {
				t.Errorf("Probe = %v, %q, %v; want %v and %q", ok, cond, err, tt.wantOK, tt.wantText)
			}
		})
	}
}
