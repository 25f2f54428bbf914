package lab

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// largestLab is the largest lab validate accepts: every list at its
// maximum, every name and type at its longest.
func largestLab() *Lab {
	l := &Lab{Name: strings.Repeat("l", 19), Versions: DefaultVersions()}
	for ti := range MaxTenants {
		t := Tenant{Name: fmt.Sprintf("%s%02d", strings.Repeat("t", 19), ti)}
		for wi := range maxWorkers {
			w := Worker{Name: fmt.Sprintf("%s%02d", strings.Repeat("w", 19), wi)}
			for range maxCardsPerWorker {
				w.GPUs = append(w.GPUs, GPUGroup{Model: customModel, Count: 1, MemoryMB: maxMemoryMB,
					Type: "NVIDIA-" + strings.Repeat("x", maxTypeLen-7)})
			}
			t.Workers = append(t.Workers, w)
		}
		l.Tenants = append(l.Tenants, t)
	}
	l.applyDefaults()
	return l
}

// TestLargestLabFitsTheCap: the cap refuses no valid lab written out in
// full (block YAML, every default spelled out).
func TestLargestLabFitsTheCap(t *testing.T) {
	l := largestLab()
	if errs := l.validate(); len(errs) > 0 {
		t.Fatalf("the largest lab is not valid: %v", errs)
	}
	data, err := yaml.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > maxFileBytes*3/4 {
		t.Errorf("the largest valid lab is %d bytes, too close to the cap of %d", len(data), maxFileBytes)
	}
	if _, err := Parse(data); err != nil {
		t.Errorf("the largest valid lab is refused: %v", err)
	}
	t.Logf("the largest valid lab is %d bytes (cap %d)", len(data), maxFileBytes)
}

// TestFileOverTheCapIsNotRead: one byte over the cap is refused with the
// reason, before any parsing; at the cap the file is parsed.
func TestFileOverTheCapIsNotRead(t *testing.T) {
	dir := t.TempDir()
	at := append([]byte("tenants: []\n"), bytes.Repeat([]byte(" "), maxFileBytes-len("tenants: []\n"))...)
	over := append(bytes.Clone(at), ' ')
	for name, data := range map[string][]byte{"at.yaml": at, "over.yaml": over} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, "over.yaml")
	want := "lab file " + p + ": the file is larger than 1048576 bytes (1 MiB), far more than the largest valid lab: is it the right file?"
	if _, err := Load(p); err == nil || err.Error() != want {
		t.Errorf("Load(over the cap) = %v, want %s", err, want)
	}
	if _, err := Load(filepath.Join(dir, "at.yaml")); err == nil || !strings.Contains(err.Error(), "tenants: Required value") {
		t.Errorf("Load(at the cap) = %v, want the lab's own problem", err)
	}
}

func TestMissingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope.yaml")
	want := "lab file " + p + " does not exist: check the path, " +
		"or leave the file out to use the seed lab (`labctl plan` prints it): open " + p + ": no such file or directory"
	if _, err := Load(p); err == nil || err.Error() != want {
		t.Errorf("Load(missing) = %v, want %s", err, want)
	}
}
