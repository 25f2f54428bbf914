// Package state owns the state directory shared by `labctl up`, `labctl
// testenv up`, `labctl test` and the Dagger module. Nothing else joins a path
// under it or writes into it: every path comes from a Dir method and every
// write goes through Dir (private temp file, mode before content, rename).
//
//	<dir>/labctl-state.json            the marker: which backend made the dir, what labctl wrote
//	<dir>/resolved-lab.yaml            the resolved lab the state belongs to
//	<dir>/kubeconfigs/<tenant>.yaml    admin kubeconfig of each tenant
//	<dir>/kubeconfigs/management.yaml  the management cluster (real lab only)
//	<dir>/values/<name>.yaml           what was handed to helm (real lab only)
//	<dir>/stages.json                  what each stage did and how long it took
//	<dir>/backend                      one line: what the lab runs on
//	<dir>/server-version               the tenants' real version, when it differs from the lab's pin
//	<dir>/diagnostics/<stage>-<time>/  the bundle of a failed stage
//	<dir>/running.lock                 held (flock) while a labctl process works on the dir
//	<dir>/images-loaded.json           the image bundle last loaded into the daemon (up --images)
//	<dir>/owner.json                   the owner ID and the kind cluster's node containers this dir created
//
// labctl makes a state dir only where none is or where the directory is
// empty (Claim), with mode 0700, and refuses one that another user owns or
// that group or others may write. It never replaces a file it did not
// record writing (a hand-written lab.yaml stays as it is: labctl's own
// record is resolved-lab.yaml), and `down` removes only what it recorded.
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

// The names inside a state directory. The Dagger module's shell script and
// its export of the state dir use KubeconfigsDir and ManagementKubeconfig
// (a test in .dagger/moduletest keeps its copies equal to these).
const (
	markerFile        = "labctl-state.json"
	labFile           = "resolved-lab.yaml"
	KubeconfigsDir    = "kubeconfigs"
	ManagementName    = "management"
	valuesDir         = "values"
	StagesFile        = "stages.json"
	backendFile       = "backend"
	serverVersionFile = "server-version"
	diagnosticsDir    = "diagnostics"
	lockFile          = "running.lock"
	// imagesLoadedFile names the image bundle last loaded into the daemon
	// (`up --images`), so the next `up --only` does not load it again.
	imagesLoadedFile = "images-loaded.json"
	// ownerFile holds what the real lab's stages created from this dir
	// (ci/stages/internal/owner): its owner ID and the kind node containers.
	ownerFile = "owner.json"
)

// Dir is a state directory.
type Dir string

// DefaultDir is where labctl keeps state when --state-dir is not given.
const DefaultDir = ".lab"

func (d Dir) path(rel string) string { return filepath.Join(string(d), filepath.FromSlash(rel)) }

func kubeconfigRel(name string) string { return KubeconfigsDir + "/" + name + ".yaml" }

// Kubeconfig is the path of a tenant's admin kubeconfig.
func (d Dir) Kubeconfig(tenant string) string { return d.path(kubeconfigRel(tenant)) }

// ManagementKubeconfig is the path of the management cluster's kubeconfig.
func (d Dir) ManagementKubeconfig() string { return d.path(kubeconfigRel(ManagementName)) }

// Values is the path of a helm values (or other input) file named name.
func (d Dir) Values(name string) string { return d.path(valuesDir + "/" + name) }

// LabPath is the path of the resolved lab labctl recorded.
func (d Dir) LabPath() string { return d.path(labFile) }

// WriteKubeconfig stores a tenant kubeconfig (0600).
func (d Dir) WriteKubeconfig(tenant string, data []byte) error {
	return d.write(kubeconfigRel(tenant), data, 0o600)
}

// WriteManagementKubeconfig stores the management cluster's kubeconfig (0600).
func (d Dir) WriteManagementKubeconfig(data []byte) error {
	return d.write(kubeconfigRel(ManagementName), data, 0o600)
}

// WriteValuesFile stores a helm input file at p, a path Values returned
// (0600: it may hold what the chart is told about the cluster).
func (d Dir) WriteValuesFile(p string, data []byte) error {
	rel, err := filepath.Rel(d.path(valuesDir), p)
	if err != nil || rel != filepath.Base(rel) || rel == "." || rel == ".." {
		return fmt.Errorf("state dir %s: %s is not a file of %s/ (take the path from Dir.Values)", d, p, d.path(valuesDir))
	}
	return d.write(valuesDir+"/"+rel, data, 0o600)
}

// ImagesLoaded returns the path of the image bundle record for
// images.LoadOnce, which reads and writes it itself: the path is recorded
// first, like every write of Dir.
func (d Dir) ImagesLoaded() (string, error) {
	if err := d.reserve(imagesLoadedFile); err != nil {
		return "", err
	}
	return d.path(imagesLoadedFile), nil
}

// StagesPath is where the stage records are, for readers that copy them
// (the rehearsal keeps them beside its reports).
func (d Dir) StagesPath() string { return d.path(StagesFile) }

// DiagnosticsRoot is the directory of the diagnostics bundles.
func (d Dir) DiagnosticsRoot() string { return d.path(diagnosticsDir) }

// OwnerRecordPath is where the owner record is, for messages.
func (d Dir) OwnerRecordPath() string { return d.path(ownerFile) }

// ReadOwnerRecord reads the owner record; ok is false when there is none.
func (d Dir) ReadOwnerRecord() (data []byte, ok bool, err error) {
	b, err := os.ReadFile(d.path(ownerFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	return b, err == nil, err
}

// WriteOwnerRecord replaces the owner record (private, like every write).
func (d Dir) WriteOwnerRecord(data []byte) error { return d.write(ownerFile, data, 0o600) }

// ManagementKubeconfigForKind returns the management kubeconfig's path
// for kind's cluster creation, which writes the file itself: the path is
// recorded (and kubeconfigs/ made) first, like every write of Dir.
func (d Dir) ManagementKubeconfigForKind() (string, error) {
	rel := kubeconfigRel(ManagementName)
	if err := d.reserve(rel); err != nil {
		return "", err
	}
	return d.path(rel), nil
}

// WriteLab records the resolved lab.
func (d Dir) WriteLab(l *lab.Lab) error {
	b, err := yaml.Marshal(l)
	if err != nil {
		return fmt.Errorf("encode lab: %w", err)
	}
	return d.write(labFile, b, 0o600)
}

// ReadLab loads the lab the state belongs to. A missing record and one that
// cannot be read are errors that name the file and the fix: the lab a
// state dir was made for is never guessed.
func (d Dir) ReadLab() (*lab.Lab, error) {
	if _, err := d.Marker(); err != nil {
		return nil, err
	}
	p := d.LabPath()
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("state dir %s has no %s: run `labctl up` or `labctl testenv up` with --state-dir %s first", d, labFile, d)
	}
	l, err := lab.Load(p)
	if err != nil {
		return nil, fmt.Errorf(
			"state dir %s: the lab it was made for, %s, cannot be read (labctl wrote it; it was changed since): %w\n"+
				"fix: copy the lab file the lab was brought up with over %s (`labctl validate %s` checks it)", d, p, err, p, p)
	}
	return l, nil
}

// WriteBackend records what the lab runs on (shown in reports).
func (d Dir) WriteBackend(desc string) error {
	return d.write(backendFile, []byte(desc+"\n"), 0o600)
}

// Backend reads the backend description, or "" when absent.
func (d Dir) Backend() string {
	b, _ := os.ReadFile(d.path(backendFile))
	return strings.TrimSpace(string(b))
}

// WriteServerVersion records the Kubernetes version the tenants' API servers
// really run when it differs from the lab's pin (the local test environment
// builds v1.36.3 for a lab pinned at v1.36.4); `labctl test` expects it in
// TC-01.
func (d Dir) WriteServerVersion(v string) error {
	return d.write(serverVersionFile, []byte(v+"\n"), 0o600)
}

// ServerVersion reads the recorded server version, or "" when absent.
func (d Dir) ServerVersion() string {
	b, _ := os.ReadFile(d.path(serverVersionFile))
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
	b, err := os.ReadFile(d.path(StagesFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var recs []StageRecord
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, fmt.Errorf("state dir %s: %s: %w", d, StagesFile, err)
	}
	return recs, nil
}

// WriteStages replaces the stage records.
func (d Dir) WriteStages(recs []StageRecord) error {
	b, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return err
	}
	return d.write(StagesFile, b, 0o600)
}
