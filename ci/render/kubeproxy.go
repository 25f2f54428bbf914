package render

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// kube-proxy in each tenant, deployed by the lab instead of Kamaji's addon
// (see TenantControlPlaneFor for why). It mirrors kubeadm's kube-proxy addon;
// the ServiceAccount and ClusterRoleBinding are static
// (manifests.TenantKubeProxyRBAC).
const (
	kubeProxyName      = "kube-proxy"
	kubeProxyNamespace = "kube-system"
	kubeProxyConfigDir = "/var/lib/kube-proxy"
	saDir              = "/var/run/secrets/kubernetes.io/serviceaccount"
)

// kubeProxyConfiguration holds the kubeproxy.config.k8s.io/v1alpha1 fields
// the lab sets (the kube-proxy module is not a dependency of the project).
type kubeProxyConfiguration struct {
	APIVersion       string `json:"apiVersion"`
	Kind             string `json:"kind"`
	ClientConnection struct {
		Kubeconfig string `json:"kubeconfig"`
	} `json:"clientConnection"`
	ClusterCIDR string `json:"clusterCIDR"`
	Mode        string `json:"mode"`
	Conntrack   struct {
		// MaxPerCore 0 leaves nf_conntrack_max alone (kind's setting): the
		// sysctl is read-only in a worker container's network namespace.
		MaxPerCore *int32 `json:"maxPerCore"`
		Min        *int32 `json:"min"`
	} `json:"conntrack"`
}

// KubeProxy returns the tenant's kube-proxy ConfigMap and DaemonSet. The
// image is the tenant version's kube-proxy, preloaded in kindest/node.
func KubeProxy(l *lab.Lab, tenant string, o Options) (*corev1.ConfigMap, *appsv1.DaemonSet, error) {
	i, t := tenantIndex(l, tenant)
	if t == nil {
		return nil, nil, fmt.Errorf("kube-proxy for tenant %q: no such tenant in lab %q", tenant, l.Name)
	}
	server, err := tenantEndpoint(l, tenant, o)
	if err != nil {
		return nil, nil, fmt.Errorf("kube-proxy: %w", err)
	}
	cfgYAML, err := yaml.Marshal(kubeProxyConfig(TenantPodCIDR(i)))
	if err != nil {
		return nil, nil, fmt.Errorf("kube-proxy for tenant %q: config: %w", tenant, err)
	}
	kcYAML, err := yaml.Marshal(kubeProxyKubeconfig(server))
	if err != nil {
		return nil, nil, fmt.Errorf("kube-proxy for tenant %q: kubeconfig: %w", tenant, err)
	}
	labels := map[string]string{"k8s-app": kubeProxyName, LabelLab: l.Name}
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: kubeProxyName, Namespace: kubeProxyNamespace, Labels: labels},
		Data:       map[string]string{"config.conf": string(cfgYAML), "kubeconfig.conf": string(kcYAML)},
	}
	return cm, kubeProxyDaemonSet(l.Versions.Kubernetes, labels), nil
}

// kubeProxyConfig is kube-proxy's configuration (config.conf) for a tenant
// whose pods get addresses of podCIDR.
func kubeProxyConfig(podCIDR string) kubeProxyConfiguration {
	var cfg kubeProxyConfiguration
	cfg.APIVersion, cfg.Kind = "kubeproxy.config.k8s.io/v1alpha1", "KubeProxyConfiguration"
	cfg.ClientConnection.Kubeconfig = kubeProxyConfigDir + "/kubeconfig.conf"
	cfg.ClusterCIDR = podCIDR
	cfg.Mode = "iptables"
	zero := int32(0)
	cfg.Conntrack.MaxPerCore, cfg.Conntrack.Min = &zero, &zero
	return cfg
}

// kubeProxyKubeconfig is kube-proxy's kubeconfig (kubeconfig.conf): the
// tenant API server at server, reached with the pod's service account.
func kubeProxyKubeconfig(server string) clientcmdv1.Config {
	return clientcmdv1.Config{
		Kind: "Config", APIVersion: "v1",
		Clusters: []clientcmdv1.NamedCluster{{Name: "default", Cluster: clientcmdv1.Cluster{
			Server: server, CertificateAuthority: saDir + "/ca.crt",
		}}},
		AuthInfos: []clientcmdv1.NamedAuthInfo{{Name: "default", AuthInfo: clientcmdv1.AuthInfo{TokenFile: saDir + "/token"}}},
		Contexts: []clientcmdv1.NamedContext{{Name: "default", Context: clientcmdv1.Context{
			Cluster: "default", AuthInfo: "default", Namespace: "default",
		}}},
		CurrentContext: "default",
	}
}

// kubeProxyDaemonSet runs kube-proxy of kubernetesVersion on every node,
// reading the ConfigMap KubeProxy returns.
func kubeProxyDaemonSet(kubernetesVersion string, labels map[string]string) *appsv1.DaemonSet {
	privileged := true
	fileOrCreate := corev1.HostPathFileOrCreate
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: kubeProxyName, Namespace: kubeProxyNamespace, Labels: labels},
		Spec: appsv1.DaemonSetSpec{
			Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": kubeProxyName}},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					PriorityClassName:  "system-node-critical",
					ServiceAccountName: kubeProxyName,
					HostNetwork:        true,
					NodeSelector:       map[string]string{"kubernetes.io/os": "linux"},
					Tolerations:        []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
					Containers: []corev1.Container{{
						Name:            kubeProxyName,
						Image:           "registry.k8s.io/kube-proxy:" + kubernetesVersion,
						ImagePullPolicy: corev1.PullIfNotPresent,
						Command: []string{"/usr/local/bin/kube-proxy",
							"--config=" + kubeProxyConfigDir + "/config.conf",
							"--hostname-override=$(NODE_NAME)"},
						Env: []corev1.EnvVar{{Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{
							FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"},
						}}},
						SecurityContext: &corev1.SecurityContext{Privileged: &privileged},
						VolumeMounts: []corev1.VolumeMount{
							{Name: "kube-proxy", MountPath: kubeProxyConfigDir},
							{Name: "xtables-lock", MountPath: "/run/xtables.lock"},
							{Name: "lib-modules", MountPath: "/lib/modules", ReadOnly: true},
						},
					}},
					Volumes: []corev1.Volume{
						{Name: "kube-proxy", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
							LocalObjectReference: corev1.LocalObjectReference{Name: kubeProxyName},
						}}},
						{Name: "xtables-lock", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
							Path: "/run/xtables.lock", Type: &fileOrCreate,
						}}},
						{Name: "lib-modules", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
							Path: "/lib/modules",
						}}},
					},
				},
			},
		},
	}
}
