package imagebuild

import (
	"os"
	"reflect"
	"testing"
)

// Recorded: kubeadm v1.37.0's image list (testdata/README.md). kind drops
// its pause (3.10.2) for the containerd sandbox image (3.10), then adds
// kindnetd and local-path (buildcontext.go:215-253).
func TestNodePreloadsOfKubeadmV1370(t *testing.T) {
	b, err := os.ReadFile("testdata/kubeadm-config-images-list-v1.37.0.txt")
	if err != nil {
		t.Fatal(err)
	}
	list, err := parseKubeadmImages(string(b))
	if err != nil {
		t.Fatal(err)
	}
	got := nodePreloads(list, sandboxImage,
		[]string{"docker.io/kindest/kindnetd:v20260820-69b56db7"},
		[]string{"docker.io/kindest/local-path-provisioner:v20260820-69b56db7", "docker.io/kindest/local-path-helper:v20260131-7181c60a"})
	want := []string{
		"registry.k8s.io/kube-apiserver:v1.37.0",
		"registry.k8s.io/kube-controller-manager:v1.37.0",
		"registry.k8s.io/kube-scheduler:v1.37.0",
		"registry.k8s.io/kube-proxy:v1.37.0",
		"registry.k8s.io/coredns/coredns:v1.14.6",
		"registry.k8s.io/etcd:3.7.0-0",
		"registry.k8s.io/pause:3.10",
		"docker.io/kindest/kindnetd:v20260820-69b56db7",
		"docker.io/kindest/local-path-provisioner:v20260820-69b56db7",
		"docker.io/kindest/local-path-helper:v20260131-7181c60a",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("preloads =\n%v\nwant\n%v", got, want)
	}
	for _, ref := range got {
		if r := recipeFor(ref); r.Kind == kindUnsupported {
			t.Errorf("preload %s has no recipe: %s", ref, r.Why)
		}
	}
}
