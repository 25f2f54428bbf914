package stages

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

func TestCheckStaticLinux(t *testing.T) {
	if err := CheckStaticLinux(bytes.NewReader([]byte("#!/bin/sh\necho hi\n"))); err == nil || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
		t.Errorf("script: err = %v", err)
	}
	// /bin/sh on Debian is a dynamically linked ELF.
	if f, err := os.Open("/bin/sh"); err == nil {
		defer f.Close()
		if err := CheckStaticLinux(f); err == nil || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
			t.Errorf("/bin/sh: err = %v, want a dynamic-linking error", err)
		}
	}
}

func TestFinalizerImageAndRootfs(t *testing.T) {
	a, b := FinalizerImage([]byte("one")), FinalizerImage([]byte("two"))
	if a == b || !strings.HasPrefix(a, FinalizerImageRepo+":") || a != FinalizerImage([]byte("one")) {
		t.Errorf("FinalizerImage not content-addressed: %s %s", a, b)
	}
	rootfs, err := ImageRootfs([]byte("binary"))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(bytes.NewReader(rootfs))
	h, err := tr.Next()
	if err != nil || h.Name != "labctl" || h.Mode != 0o755 {
		t.Fatalf("first entry = %+v, %v", h, err)
	}
	body, _ := io.ReadAll(tr)
	if string(body) != "binary" {
		t.Errorf("body = %q", body)
	}
	if _, err := tr.Next(); err != io.EOF {
		t.Errorf("rootfs has more than /labctl: %v", err)
	}
	if ContainerdName("gpu-lab/labctl:abc") != "docker.io/gpu-lab/labctl:abc" {
		t.Error("ContainerdName")
	}
}

func TestFinalizerObjects(t *testing.T) {
	objs := FinalizerObjects(lab.Default(), "tenant-b", "gpu-lab/labctl:abc", []byte("name: gpu-lab\n"))
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
	if strings.Join(c.Args, " ") != "finalizer --lab /etc/gpu-lab/lab.yaml --tenant tenant-b" {
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
