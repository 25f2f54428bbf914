package nodeimage

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
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

func TestImageRootfs(t *testing.T) {
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
	if containerdName("gpu-lab/labctl:abc") != "docker.io/gpu-lab/labctl:abc" {
		t.Error("ContainerdName")
	}
}
