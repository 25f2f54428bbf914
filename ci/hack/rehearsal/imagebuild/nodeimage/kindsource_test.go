package nodeimage

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// kindModuleDir is kind's module in the module cache: the root module
// requires sigs.k8s.io/kind v0.33.0 (ci/lab), so building it downloaded it.
func kindModuleDir(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/kind").Output()
	if err != nil {
		t.Fatalf("go list -m sigs.k8s.io/kind: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	if !strings.HasSuffix(dir, "@"+KindModuleVersion) {
		t.Fatalf("kind module %s is not %s", dir, KindModuleVersion)
	}
	return dir
}

// The facts ReadKindFiles gets from kind v0.33.0: const_cni.go:23-25
// kindnetdImage, const_storage.go:29-33 the local-path images; the
// manifests name them (const_cni.go:111, const_storage.go:138,145).
func TestReadKindFilesOfKindV0330(t *testing.T) {
	kf, err := ReadKindFiles(kindModuleDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"docker.io/kindest/kindnetd:v20260820-69b56db7"}; !reflect.DeepEqual(kf.CNIImages, want) {
		t.Errorf("CNI images %v, want %v", kf.CNIImages, want)
	}
	wantStorage := []string{"docker.io/kindest/local-path-provisioner:v20260820-69b56db7",
		"docker.io/kindest/local-path-helper:v20260131-7181c60a"}
	if !reflect.DeepEqual(kf.StorageImages, wantStorage) {
		t.Errorf("storage images %v, want %v", kf.StorageImages, wantStorage)
	}
	for _, w := range []string{"kind: DaemonSet", "image: docker.io/kindest/kindnetd:v20260820-69b56db7"} {
		if !strings.Contains(kf.CNIManifest, w) {
			t.Errorf("CNI manifest lacks %q", w)
		}
	}
	if !strings.Contains(kf.StorageManifest, "image: docker.io/kindest/local-path-provisioner:v20260820-69b56db7") {
		t.Error("storage manifest lacks the provisioner image")
	}
	if len(kf.Scripts) != 3 || !strings.HasSuffix(kf.Entrypoint, "images/base/files/usr/local/bin/entrypoint") {
		t.Errorf("entrypoint %s, scripts %v", kf.Entrypoint, kf.Scripts)
	}
}

func TestReadKindFilesNamesAModuleWithoutThem(t *testing.T) {
	_, err := ReadKindFiles(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "kind "+KindModuleVersion) {
		t.Errorf("err = %v, want one naming kind %s", err, KindModuleVersion)
	}
}
