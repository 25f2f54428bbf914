package rehearsal

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
)

// LabYAML is the rehearsal's default lab (lab.yaml): the seed lab with the
// management node on the tenants' Kubernetes version.
//
//go:embed lab.yaml
var LabYAML []byte

// labFileName is the name WriteLab gives the rehearsal's lab.
const labFileName = "rehearsal-lab.yaml"

// WriteLab writes LabYAML into dir (the rehearsal's cache) and returns its
// path: `labctl up` inside the namespace reads the lab from a file.
func WriteLab(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("the rehearsal's lab file: %w", err)
	}
	p := filepath.Join(dir, labFileName)
	if err := os.WriteFile(p, LabYAML, 0o644); err != nil {
		return "", fmt.Errorf("the rehearsal's lab file: %w", err)
	}
	return p, nil
}
