package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBundleIndexRefusesAMalformedDigest: `kindNodeImage: x@y` once made
// `labctl images --bundle-index` panic (slice out of range naming the
// archive); now it, and `labctl images`, fail naming the image.
func TestBundleIndexRefusesAMalformedDigest(t *testing.T) {
	file := filepath.Join(t.TempDir(), "lab.yaml")
	if err := os.WriteFile(file, []byte(`apiVersion: gpu-lab.dev/v1alpha1
kind: Lab
versions:
  kindNodeImage: x@y
tenants: [{name: tenant-a, workers: [{name: worker, gpus: [{model: L4, count: 1}]}]}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--bundle-index", "-f", file}, {"-f", file}} {
		out, _, err := run(t, newImagesCommand, args...)
		if err == nil || !strings.Contains(err.Error(), `"x@y"`) {
			t.Errorf("labctl images %s: err = %v, out:\n%s", strings.Join(args, " "), err, out)
		}
	}
}
