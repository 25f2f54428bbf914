package pullpolicy

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/render"
)

// ProbeName names the dry-run pod that proves the policy is in force.
const ProbeName = "gpu-lab-pull-policy-probe"

// probeImage is never pulled: the probe is only ever a dry run.
const probeImage = "gpu-lab.invalid/pull-policy-probe:dry-run"

// Probe creates, as a dry run (admission runs, nothing is stored or
// started), a pod labelled like Kamaji's control-plane pods with
// imagePullPolicy Always in namespace ns, and reads the policy the API
// server would store: true once it is IfNotPresent, with the condition
// seen either way.
func Probe(ctx context.Context, kube kubernetes.Interface, ns string) (bool, string, error) {
	probe := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: ProbeName, Namespace: ns, Labels: map[string]string{
			render.KamajiPodLabelName: ProbeName, render.KamajiPodLabelComponent: render.KamajiPodComponent,
		}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "kube-apiserver", Image: probeImage, ImagePullPolicy: corev1.PullAlways,
		}}},
	}
	got, err := kube.CoreV1().Pods(ns).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		return false, "", fmt.Errorf("dry-run pod %s/%s: %w", ns, ProbeName, err)
	}
	if len(got.Spec.Containers) != 1 {
		b, _ := yaml.Marshal(got.Spec.Containers)
		return false, "", fmt.Errorf("dry-run pod %s/%s came back with containers %s", ns, ProbeName, b)
	}
	p := got.Spec.Containers[0].ImagePullPolicy
	if p != render.BundlePullPolicy {
		return false, fmt.Sprintf("a dry-run pod still asks imagePullPolicy %s (the API server has not loaded the policy yet)", p), nil
	}
	return true, "a dry-run pod comes back imagePullPolicy " + string(p), nil
}
