// Package state is the on-disk layout shared by `labctl up`, `labctl testenv
// up`, `labctl test` and the Dagger module:
//
//	<dir>/lab.yaml                     the resolved lab the state belongs to
//	<dir>/kubeconfigs/<tenant>.yaml    admin kubeconfig of each tenant
//	<dir>/kubeconfigs/management.yaml  the management cluster (real lab only)
//	<dir>/stages.json                  what each stage did and how long it took
//	<dir>/backend                      one line: what the lab runs on
//	<dir>/server-version               the tenants' real version, when it differs from the lab's pin
package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// Dir is a state directory.
type Dir string

// DefaultDir is where labctl keeps state when --state-dir is not given.
const DefaultDir = ".lab"

func (d Dir) path(p ...string) string { return filepath.Join(append([]string{string(d)}, p...)...) }

// Kubeconfig is the path of a tenant's admin kubeconfig.
func (d Dir) Kubeconfig(tenant string) string { return d.path("kubeconfigs", tenant+".yaml") }

// ManagementKubeconfig is the path of the management cluster's kubeconfig.
func (d Dir) ManagementKubeconfig() string { return d.Kubeconfig(lab.ManagementName) }

// WriteKubeconfig stores a tenant kubeconfig (0600).
func (d Dir) WriteKubeconfig(tenant string, data []byte) error {
	return writeFile(d.Kubeconfig(tenant), data, 0o600)
}

// WriteLab stores the resolved lab.
func (d Dir) WriteLab(l *lab.Lab) error {
	b, err := yaml.Marshal(l)
	if err != nil {
		return fmt.Errorf("encode lab: %w", err)
	}
	return writeFile(d.path("lab.yaml"), b, 0o644)
}

// ReadLab loads the lab the state belongs to.
func (d Dir) ReadLab() (*lab.Lab, error) {
	p := d.path("lab.yaml")
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("state dir %s has no lab.yaml: run `labctl up` or `labctl testenv up` with --state-dir %s first", d, d)
	}
	return lab.Load(p)
}

// WriteBackend records what the lab runs on (shown in reports).
func (d Dir) WriteBackend(desc string) error {
	return writeFile(d.path("backend"), []byte(desc+"\n"), 0o644)
}

// Backend reads the backend description, or "" when absent.
func (d Dir) Backend() string {
	b, _ := os.ReadFile(d.path("backend"))
	return strings.TrimSpace(string(b))
}

// WriteServerVersion records the Kubernetes version the tenants' API servers
// really run when it differs from the lab's pin (the local test environment
// builds v1.36.3 for a lab pinned at v1.36.4); `labctl test` expects it in
// TC-01.
func (d Dir) WriteServerVersion(v string) error {
	return writeFile(d.path("server-version"), []byte(v+"\n"), 0o644)
}

// ServerVersion reads the recorded server version, or "" when absent.
func (d Dir) ServerVersion() string {
	b, _ := os.ReadFile(d.path("server-version"))
	return strings.TrimSpace(string(b))
}

// StageRecord is what a stage did.
type StageRecord struct {
	Name     string        `json:"name"`
	Status   string        `json:"status"` // done, skipped, failed
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration"`
	Message  string        `json:"message,omitempty"`
}

// ReadStages returns the recorded stages (none when the file is absent).
func (d Dir) ReadStages() ([]StageRecord, error) {
	b, err := os.ReadFile(d.path("stages.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var recs []StageRecord
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, fmt.Errorf("state dir %s: stages.json: %w", d, err)
	}
	return recs, nil
}

// WriteStages replaces the stage records.
func (d Dir) WriteStages(recs []StageRecord) error {
	b, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(d.path("stages.json"), b, 0o644)
}

func writeFile(p string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}
