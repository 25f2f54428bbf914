package lab

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"time"
)

//go:embed default-lab.yaml
var defaultLab []byte

// defaultYAML is the embedded default lab file.
func defaultYAML() []byte { return bytes.Clone(defaultLab) }

// Default returns the seed lab, defaulted and validated.
func Default() *Lab {
	l, err := Parse(defaultLab)
	if err != nil {
		panic(fmt.Sprintf("embedded default lab is invalid: %v", err))
	}
	return l
}

// maxFileBytes caps a lab file. The largest valid lab (MaxTenants tenants
// of maxWorkers workers of maxCardsPerWorker custom GPU groups, every name
// and type at its longest) is 228,424 bytes, 0.22 MiB, written out in block
// YAML (TestLargestLabFitsTheCap); real labs are a few kB. Above the cap the file
// is not read at all: a 17 MB file once took 19.6 s and 528 MB to report.
const maxFileBytes = 1 << 20

// Load reads a lab file; an empty path means the embedded default. A file
// named *.json is read as JSON, any other as YAML.
func Load(path string) (*Lab, error) {
	if path == "" {
		return Default(), nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("lab file %s does not exist: check the path, "+
			"or leave the file out to use the seed lab (`labctl plan` prints it): %w", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("lab file %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("lab file %s: %w", path, err)
	}
	l, err := parseFormat(data, formatOf(path))
	if err != nil {
		return nil, fmt.Errorf("lab file %s: %w", path, err)
	}
	return l, nil
}

// Parse decodes a YAML (or JSON-as-YAML) lab; see parseFormat.
func Parse(data []byte) (*Lab, error) { return parseFormat(data, formatYAML) }

// parseFormat decodes a lab strictly (unknown or duplicate fields are
// errors), applies defaults and validates. Every independent problem comes
// back together, each once, with its field path: every unknown field (with
// the name it was probably meant to be), every value of the wrong kind, and
// every validation error of the rest of the file — but no error that only
// repeats one of those (a value of the wrong kind is not also out of range).
func parseFormat(data []byte, f format) (*Lab, error) {
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("the file is larger than %d bytes (1 MiB), far more than the largest valid lab: "+
			"is it the right file?", maxFileBytes)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("the lab file is empty: write at least `tenants:` (see `labctl plan` for the default lab)")
	}
	tree, err := f.tree(data)
	if err != nil {
		return nil, err
	}
	if _, ok := tree.(map[string]any); !ok && tree != nil {
		return nil, fmt.Errorf("the lab file must be a mapping of fields (%s), not %s",
			strings.Join(fieldNames(reflect.TypeFor[Lab]()), ", "), describeValue(tree))
	}
	s := checkShape(tree)
	var l Lab
	if err := decodeStrict(s.clean, &l); err != nil {
		// The shape check leaves only known fields of the right kind; a
		// file that still does not decode is a bug in the check.
		return nil, fmt.Errorf("the file does not decode as a lab: %s (fields are listed in README \"Lab file reference\")", decodeMessage(err))
	}
	l.applyDefaults()
	errs := s.errs
	for _, e := range l.validate() {
		if !s.consequence(e) {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		return nil, &validationError{Errs: errs}
	}
	return &l, nil
}

// decodeStrict decodes the checked tree into l, refusing unknown fields.
func decodeStrict(tree any, l *Lab) error {
	b, err := json.Marshal(tree)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(l)
}

// decodeMessage strips the decoder's layers ("error unmarshaling JSON:
// while decoding JSON: json: ") from a message about a YAML file.
func decodeMessage(err error) string {
	s := err.Error()
	for _, prefix := range []string{"error converting YAML to JSON: ", "error unmarshaling JSON: ", "while decoding JSON: ",
		"json: ", "yaml: "} {
		s = strings.ReplaceAll(s, prefix, "")
	}
	return s
}

// Defaults for fields a lab file may leave out.
const (
	defaultName            = "gpu-lab"
	defaultSplitCount      = 10
	defaultNodeLockTimeout = "5m"
	// The lab's HAMi client rate and kube-scheduler backoff, chosen from
	// runs of the suite against the real HAMi v2.10.0 scheduler
	// (HAMI-FACTS.md §5.6): QPS 20 / burst 40 with backoff 1 s / 1 s ran
	// TC-14 in 10.0-12.4 s against 34-38 s with HAMi's defaults (QPS 5 /
	// burst 10, kube-scheduler's 1 s / 10 s). Unthrottled (QPS 50) binds
	// collide on the node lock and, with a long backoff, retry in lock-step.
	defaultKubeQPS                  = 20
	defaultKubeBurst                = 40
	defaultPodInitialBackoffSeconds = 1
	defaultPodMaxBackoffSeconds     = 1
	defaultAPIServerPort            = 31443
	defaultKonnectivityPort         = 31132
)

// applyDefaults fills omitted fields in place. It is idempotent and leaves
// invalid values alone for validate to report.
func (l *Lab) applyDefaults() {
	if l.APIVersion == "" {
		l.APIVersion = apiVersion
	}
	if l.Kind == "" {
		l.Kind = kind
	}
	if l.Name == "" {
		l.Name = defaultName
	}
	l.Versions = l.Versions.withDefaults()
	if l.HAMi.SplitCount == 0 {
		l.HAMi.SplitCount = defaultSplitCount
	}
	if l.HAMi.NodeLockTimeout == "" {
		l.HAMi.NodeLockTimeout = defaultNodeLockTimeout
	}
	if l.HAMi.KubeQPS == 0 {
		l.HAMi.KubeQPS = defaultKubeQPS
	}
	if l.HAMi.KubeBurst == 0 {
		l.HAMi.KubeBurst = defaultKubeBurst
	}
	if l.HAMi.PodInitialBackoffSeconds == 0 {
		l.HAMi.PodInitialBackoffSeconds = defaultPodInitialBackoffSeconds
	}
	if l.HAMi.PodMaxBackoffSeconds == 0 {
		l.HAMi.PodMaxBackoffSeconds = max(defaultPodMaxBackoffSeconds, l.HAMi.PodInitialBackoffSeconds)
	}
	l.allocatePorts()
}

// NodeLockTimeoutDuration parses HAMi.NodeLockTimeout (validated).
func (l *Lab) NodeLockTimeoutDuration() time.Duration {
	d, _ := time.ParseDuration(l.HAMi.NodeLockTimeout)
	return d
}

// Tenant returns the named tenant, or nil.
func (l *Lab) Tenant(name string) *Tenant {
	for i := range l.Tenants {
		if l.Tenants[i].Name == name {
			return &l.Tenants[i]
		}
	}
	return nil
}

// TenantNames lists the tenants in file order.
func (l *Lab) TenantNames() []string {
	out := make([]string, len(l.Tenants))
	for i, t := range l.Tenants {
		out[i] = t.Name
	}
	return out
}
