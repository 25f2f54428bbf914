package images

import (
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// A digest is ALGORITHM:HEX of the algorithm's length (go-digest v1.0.0
// algorithm.go:56-62); ArchiveName never panics on one that is not.
func TestDigests(t *testing.T) {
	hex64 := strings.Repeat("a1", 32)
	tests := []struct {
		ref  string
		ok   bool
		file string
	}{
		{"kindest/node:v1.37.0", true, "kindest_node_v1.37.0.tar"},
		{"kindest/node:v1.37.0@sha256:" + hex64, true, "kindest_node_v1.37.0_a1a1a1a1a1a1.tar"},
		{"x@sha512:" + strings.Repeat("0", 128), true, "x_sha512_00000.tar"},
		{"x@y", false, "x_y.tar"},
		{"x@sha256:abc", false, "x_abc.tar"},
		{"x@sha256:" + strings.ToUpper(hex64), false, "x_A1A1A1A1A1A1.tar"},
		{"x@", false, "x.tar"},
		{"x@sha256:../../" + hex64[:58], false, "x_.._.._a1a1a1.tar"},
	}
	for _, tt := range tests {
		err := checkDigest(tt.ref)
		if (err == nil) != tt.ok || (err != nil && !strings.Contains(err.Error(), tt.ref)) {
			t.Errorf("checkDigest(%q) = %v, want ok=%v and an error naming it", tt.ref, err, tt.ok)
		}
		if got := ArchiveName(tt.ref); got != tt.file || strings.Contains(got, "/") {
			t.Errorf("ArchiveName(%q) = %q, want %q", tt.ref, got, tt.file)
		}
	}
}

// A lab whose kindNodeImage has a malformed digest gets no image list: it
// names the image and the lab file's versions.
func TestListRefusesAMalformedDigest(t *testing.T) {
	l := lab.Default()
	l.Versions.KindNodeImage = "x@y"
	if _, err := List(l); err == nil || !strings.Contains(err.Error(), `"x@y"`) || !strings.Contains(err.Error(), "versions") {
		t.Errorf("List = %v, want an error naming x@y and the lab's versions", err)
	}
}
