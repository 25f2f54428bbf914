package pullpolicy

import (
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// Installed reports whether the lab's policy and its binding are there.
func Installed(ctx context.Context, kube kubernetes.Interface, l *lab.Lab) (bool, error) {
	name := render.BundlePullPolicyName(l)
	ar := kube.AdmissionregistrationV1()
	if _, err := ar.MutatingAdmissionPolicies().Get(ctx, name, metav1.GetOptions{}); err != nil {
		return false, ignoreNotFound(err)
	}
	if _, err := ar.MutatingAdmissionPolicyBindings().Get(ctx, name, metav1.GetOptions{}); err != nil {
		return false, ignoreNotFound(err)
	}
	return true, nil
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// Apply creates or updates the policy and its binding (typed clients:
// the fake clients of the tests track them).
func Apply(ctx context.Context, kube kubernetes.Interface, policy *admissionregistrationv1.MutatingAdmissionPolicy,
	binding *admissionregistrationv1.MutatingAdmissionPolicyBinding) error {
	ps := kube.AdmissionregistrationV1().MutatingAdmissionPolicies()
	cur, err := ps.Get(ctx, policy.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = ps.Create(ctx, policy, metav1.CreateOptions{FieldManager: "labctl"})
	case err == nil:
		policy.ResourceVersion = cur.ResourceVersion
		_, err = ps.Update(ctx, policy, metav1.UpdateOptions{FieldManager: "labctl"})
	}
	if err != nil {
		return fmt.Errorf("MutatingAdmissionPolicy %s: %w", policy.Name, err)
	}
	bs := kube.AdmissionregistrationV1().MutatingAdmissionPolicyBindings()
	curB, err := bs.Get(ctx, binding.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = bs.Create(ctx, binding, metav1.CreateOptions{FieldManager: "labctl"})
	case err == nil:
		binding.ResourceVersion = curB.ResourceVersion
		_, err = bs.Update(ctx, binding, metav1.UpdateOptions{FieldManager: "labctl"})
	}
	if err != nil {
		return fmt.Errorf("MutatingAdmissionPolicyBinding %s: %w", binding.Name, err)
	}
	return nil
}
