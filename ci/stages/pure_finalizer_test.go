package stages

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

func TestFinalizerImage(t *testing.T) {
	a, b := finalizerImage([]byte("one")), finalizerImage([]byte("two"))
	if a == b || !strings.HasPrefix(a, finalizerImageRepo+":") || a != finalizerImage([]byte("one")) {
		t.Errorf("FinalizerImage not content-addressed: %s %s", a, b)
	}
}

func TestFinalizerObjects(t *testing.T) {
	objs := finalizerObjects(lab.Default(), "tenant-b", "gpu-lab/labctl:abc", []byte("name: gpu-lab\n"))
	var d *appsv1.Deployment
	var cm *corev1.ConfigMap
	for _, o := range objs {
		switch v := o.(type) {
		case *appsv1.Deployment:
			d = v
		case *corev1.ConfigMap:
			cm = v
		}
	}
	if d == nil || cm == nil {
		t.Fatalf("objects lack a Deployment or ConfigMap: %T", objs)
	}
	c := d.Spec.Template.Spec.Containers[0]
	if c.Image != "gpu-lab/labctl:abc" || c.ImagePullPolicy != corev1.PullNever {
		t.Errorf("image %s pull %s: the image is loaded into containerd, never pulled", c.Image, c.ImagePullPolicy)
	}
	if strings.Join(c.Args, " ") != "internal finalizer --lab /etc/gpu-lab/lab.yaml --tenant tenant-b" {
		t.Errorf("args = %q", c.Args)
	}
	if d.Spec.Template.Labels["hami.io/webhook"] != "ignore" {
		t.Error("finalizer pod must opt out of HAMi's webhook")
	}
	if cm.Data["lab.yaml"] != "name: gpu-lab\n" {
		t.Errorf("lab.yaml = %q", cm.Data["lab.yaml"])
	}
	for _, o := range objs {
		if _, err := kube.ToUnstructured(o); err != nil {
			t.Error(err)
		}
	}
}
