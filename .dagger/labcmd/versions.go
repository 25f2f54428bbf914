package labcmd

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// VersionFields are the keys of the lab file's `versions` block
// (ci/lab.Versions; a test keeps the two in step).
var VersionFields = []string{
	"kindNodeImage", "kubernetes", "workerNodeImage", "kamajiChart", "kamajiImage", "certManager",
	"hamiChart", "hamiImage", "hamiMockDevicePlugin", "konnectivity",
}

// Override is one `--versions name=value` option.
type Override struct{ Name, Value string }

// ParseOverrides checks every `name=value` option and reports all bad ones
// together.
func ParseOverrides(opts []string) ([]Override, error) {
	var (
		out  []Override
		errs []error
		seen = map[string]bool{}
	)
	for _, o := range opts {
		name, value, ok := strings.Cut(o, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		switch {
		case !ok || name == "" || value == "":
			errs = append(errs, fmt.Errorf("--versions %q: want name=value, e.g. kubernetes=v1.35.8", o))
		case !slices.Contains(VersionFields, name):
			errs = append(errs, fmt.Errorf("--versions %q: unknown version %q, want one of %s", o, name, strings.Join(VersionFields, ", ")))
		case seen[name]:
			errs = append(errs, fmt.Errorf("--versions %q: %s is set twice", o, name))
		default:
			seen[name] = true
			out = append(out, Override{Name: name, Value: value})
		}
	}
	return out, errors.Join(errs...)
}

// ApplyOverrides returns the lab file with each override written into its
// `versions` block; everything else is kept, and labctl validates the result
// (so an unsupported version fails there with labctl's own message).
func ApplyOverrides(labFile []byte, overrides []Override) ([]byte, error) {
	if len(overrides) == 0 {
		return labFile, nil
	}
	var doc map[string]any
	if err := yaml.Unmarshal(labFile, &doc); err != nil {
		return nil, fmt.Errorf("lab file: %w", err)
	}
	if doc == nil {
		return nil, fmt.Errorf("lab file: it is empty; give a lab with tenants, or no --config for the default lab")
	}
	versions := map[string]any{}
	switch v := doc["versions"].(type) {
	case nil:
	case map[string]any:
		versions = v
	default:
		return nil, fmt.Errorf("lab file: versions is a %T, want a mapping of name: value", v)
	}
	for _, o := range overrides {
		versions[o.Name] = o.Value
	}
	doc["versions"] = versions
	return yaml.Marshal(doc)
}
