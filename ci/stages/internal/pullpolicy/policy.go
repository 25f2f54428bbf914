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
	ar := kube.AdmissionregistrationV1()
	if err := createOrUpdate(ctx, ar.MutatingAdmissionPolicies(), policy); err != nil {
		return fmt.Errorf("MutatingAdmissionPolicy %s: %w", policy.Name, err)
	}
	if err := createOrUpdate(ctx, ar.MutatingAdmissionPolicyBindings(), binding); err != nil {
		return fmt.Errorf("MutatingAdmissionPolicyBinding %s: %w", binding.Name, err)
	}
	return nil
}

// typedClient is what createOrUpdate needs of a client-go typed client.
type typedClient[T metav1.Object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// createOrUpdate creates obj, or updates it at the resource version there.
func createOrUpdate[T metav1.Object](ctx context.Context, c typedClient[T], obj T) error {
	cur, err := c.Get(ctx, obj.GetName(), metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = c.Create(ctx, obj, metav1.CreateOptions{FieldManager: "labctl"})
	case err == nil:
		obj.SetResourceVersion(cur.GetResourceVersion())
		_, err = c.Update(ctx, obj, metav1.UpdateOptions{FieldManager: "labctl"})
	}
	return err
}
