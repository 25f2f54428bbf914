package stages

import (
	"crypto/sha256"
	"encoding/hex"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// The in-tenant bind finalizer: labctl itself, as a one-replica Deployment.
const (
	finalizerName      = "gpu-lab-bind-finalizer"
	finalizerNamespace = "kube-system"
	finalizerLabPath   = "/etc/gpu-lab/lab.yaml"
	finalizerImageRepo = "gpu-lab/labctl"
)

// finalizerImage is the image reference of a labctl binary: content-addressed,
// so a rebuilt labctl rolls the Deployment and an unchanged one is reused.
func finalizerImage(binary []byte) string {
	sum := sha256.Sum256(binary)
	return finalizerImageRepo + ":" + hex.EncodeToString(sum[:6])
}

// finalizerObjects are the tenant objects that run the bind finalizer and
// keep the GPU registration asserted: RBAC limited to what HAMi's device
// plugin does (patch pods and nodes), the lab file, and the Deployment.
// The pod opts out of HAMi's webhook and tolerates every taint, so it runs
// on a GPU worker without being treated as a GPU workload.
func finalizerObjects(l *lab.Lab, tenant, image string, labYAML []byte) []any {
	labels := map[string]string{"app.kubernetes.io/name": finalizerName, render.LabelLab: l.Name}
	meta := func(name, ns string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}
	}
	replicas := int32(1)
	nonRoot := true
	uid := int64(65532)
	return []any{
		&corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: meta(finalizerName, finalizerNamespace)},
		&rbacv1.ClusterRole{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
			ObjectMeta: meta(finalizerName, ""),
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch", "patch"}},
				{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get", "list", "watch", "patch"}},
				{APIGroups: []string{""}, Resources: []string{"nodes/status"}, Verbs: []string{"patch"}},
				{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
			},
		},
		&rbacv1.ClusterRoleBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
			ObjectMeta: meta(finalizerName, ""),
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: finalizerName},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: finalizerName, Namespace: finalizerNamespace}},
		},
		&corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: meta(finalizerName, finalizerNamespace),
			Data:       map[string]string{"lab.yaml": string(labYAML)},
		},
		&appsv1.Deployment{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: meta(finalizerName, finalizerNamespace),
			Spec: appsv1.DeploymentSpec{
				Replicas: &replicas,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": finalizerName}},
				Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{
						"app.kubernetes.io/name": finalizerName, render.LabelLab: l.Name, "hami.io/webhook": "ignore",
					}},
					Spec: corev1.PodSpec{
						ServiceAccountName: finalizerName,
						PriorityClassName:  "system-cluster-critical",
						Tolerations:        []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
						SecurityContext:    &corev1.PodSecurityContext{RunAsNonRoot: &nonRoot, RunAsUser: &uid},
						Containers: []corev1.Container{{
							Name:            "finalizer",
							Image:           image,
							ImagePullPolicy: corev1.PullNever,
							Args:            []string{internalCommand, FinalizerCommand, "--lab", finalizerLabPath, "--tenant", tenant},
							VolumeMounts:    []corev1.VolumeMount{{Name: "lab", MountPath: "/etc/gpu-lab", ReadOnly: true}},
						}},
						Volumes: []corev1.Volume{{Name: "lab", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
							LocalObjectReference: corev1.LocalObjectReference{Name: finalizerName},
						}}}},
					},
				},
			},
		},
	}
}
