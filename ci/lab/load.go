package lab

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

//go:embed default-lab.yaml
var defaultLab []byte

// DefaultYAML is the embedded default lab file.
func DefaultYAML() []byte { return bytes.Clone(defaultLab) }

// Default returns the seed lab, defaulted and validated.
func Default() *Lab {
	l, err := Parse(defaultLab)
	if err != nil {
		panic(fmt.Sprintf("embedded default lab is invalid: %v", err))
	}
	return l
}

// Load reads a lab file; an empty path means the embedded default.
func Load(path string) (*Lab, error) {
	if path == "" {
		return Default(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read lab file: %w", err)
	}
	l, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("lab file %s: %w", path, err)
	}
	return l, nil
}

// Parse decodes a lab strictly (unknown or duplicate fields are errors),
// applies defaults and validates. All problems come back together, each
// with its field path: every unknown field (with the name it was probably
// meant to be) and every value of the wrong kind, else every validation
// error.
func Parse(data []byte) (*Lab, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("the lab file is empty: write at least `tenants:` (see `labctl plan` for the default lab)")
	}
	shape, typeErrs, suggested, err := checkShape(data)
	if err != nil {
		return nil, err
	}
	if typeErrs {
		return nil, &ValidationError{Errs: shape}
	}
	var l Lab
	// With unknown fields found above, decode the rest leniently so their
	// validation errors come in the same pass; otherwise strictly, which
	// also catches anything the shape check let through.
	decode := yaml.UnmarshalStrict
	if len(shape) > 0 {
		decode = yaml.Unmarshal
	}
	if err := decode(data, &l); err != nil {
		return nil, fmt.Errorf("the file does not decode as a lab: %s (fields are listed in README \"Lab file reference\")", decodeMessage(err))
	}
	l.ApplyDefaults()
	errs := shape
	for _, e := range l.Validate() {
		// "tenants[0].workers: Required" repeats "tenants[0].workrs: did you
		// mean workers?".
		if e.Type == field.ErrorTypeRequired && suggested[e.Field] {
			continue
		}
		errs = append(errs, e)
	}
	if len(errs) > 0 {
		return nil, &ValidationError{Errs: errs}
	}
	return &l, nil
}

// decodeMessage strips the decoder's layers ("error unmarshaling JSON:
// while decoding JSON: json: ") from a message about a YAML file.
func decodeMessage(err error) string {
	s := err.Error()
	for _, prefix := range []string{"error converting YAML to JSON: ", "error unmarshaling JSON: ", "while decoding JSON: ", "json: ", "yaml: "} {
		s = strings.ReplaceAll(s, prefix, "")
	}
	return s
}

// Defaults for fields a lab file may leave out.
const (
	DefaultName            = "gpu-lab"
	DefaultSplitCount      = 10
	DefaultNodeLockTimeout = "5m"
	// The lab's HAMi client rate and kube-scheduler backoff, chosen from
	// runs of the suite against the real HAMi v2.10.0 scheduler
	// (hami-observed.md §7.6): QPS 20 / burst 40 with backoff 1 s / 1 s ran
	// TC-14 in 10.0-12.4 s against 34-38 s with HAMi's defaults (QPS 5 /
	// burst 10, kube-scheduler's 1 s / 10 s). Unthrottled (QPS 50) binds
	// collide on the node lock and, with a long backoff, retry in lock-step.
	DefaultKubeQPS                  = 20
	DefaultKubeBurst                = 40
	DefaultPodInitialBackoffSeconds = 1
	DefaultPodMaxBackoffSeconds     = 1
	DefaultAPIServerPort            = 31443
	DefaultKonnectivityPort         = 31132
)

// ApplyDefaults fills omitted fields in place. It is idempotent and leaves
// invalid values alone for Validate to report.
func (l *Lab) ApplyDefaults() {
	if l.APIVersion == "" {
		l.APIVersion = APIVersion
	}
	if l.Kind == "" {
		l.Kind = Kind
	}
	if l.Name == "" {
		l.Name = DefaultName
	}
	l.Versions = l.Versions.withDefaults()
	if l.HAMi.SplitCount == 0 {
		l.HAMi.SplitCount = DefaultSplitCount
	}
	if l.HAMi.NodeLockTimeout == "" {
		l.HAMi.NodeLockTimeout = DefaultNodeLockTimeout
	}
	if l.HAMi.KubeQPS == 0 {
		l.HAMi.KubeQPS = DefaultKubeQPS
	}
	if l.HAMi.KubeBurst == 0 {
		l.HAMi.KubeBurst = DefaultKubeBurst
	}
	if l.HAMi.PodInitialBackoffSeconds == 0 {
		l.HAMi.PodInitialBackoffSeconds = DefaultPodInitialBackoffSeconds
	}
	if l.HAMi.PodMaxBackoffSeconds == 0 {
		l.HAMi.PodMaxBackoffSeconds = max(DefaultPodMaxBackoffSeconds, l.HAMi.PodInitialBackoffSeconds)
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
