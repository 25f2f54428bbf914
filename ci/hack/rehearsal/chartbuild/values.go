package chartbuild

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// Values are what the lab installs a chart with: --set values in order and
// a values file (YAML; nil when none), as ci/stages passes them to helm.
type Values struct {
	Set  []string
	File []byte
	// PostRenderer is an executable and its arguments (helm v3.19.0
	// --post-renderer and repeated --post-renderer-args, as ci/stages
	// UpgradeInstallArgs passes them).
	PostRenderer []string
}

// args are the helm flags of v; the file is written into dir.
func (v Values) args(dir string) ([]string, error) {
	var args []string
	if v.File != nil {
		f := filepath.Join(dir, "values.yaml")
		if err := os.WriteFile(f, v.File, 0o644); err != nil {
			return nil, err
		}
		args = append(args, "--values", f)
	}
	for _, s := range v.Set {
		args = append(args, "--set", s)
	}
	if len(v.PostRenderer) > 0 {
		args = append(args, "--post-renderer", v.PostRenderer[0])
		for _, a := range v.PostRenderer[1:] {
			args = append(args, "--post-renderer-args", a)
		}
	}
	return args, nil
}

// Paths are the leaf keys v sets, dotted ("scheduler.kubeScheduler.image.tag"):
// each --set key, and each leaf of the file (a list is one leaf).
func (v Values) Paths() ([]string, error) {
	seen := map[string]bool{}
	for _, s := range v.Set {
		k, _, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("--set %q: no =", s)
		}
		seen[k] = true
	}
	if v.File != nil {
		var m map[string]any
		if err := yaml.Unmarshal(v.File, &m); err != nil {
			return nil, fmt.Errorf("values file: %w", err)
		}
		leaves("", m, seen)
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

func leaves(prefix string, m map[string]any, into map[string]bool) {
	for k, v := range m {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
			leaves(p, sub, into)
			continue
		}
		into[p] = true
	}
}

// Chart is what the value check reads of a chart archive: its values and
// its templates' text, and the same of each subchart by name.
type Chart struct {
	Values    map[string]any
	Templates string
	Subcharts map[string]*Chart
}

// Unknown is a value the lab sets that the chart's values.yaml lacks.
type Unknown struct {
	Path string
	// Read says whether a template reads it (".Values.<path>").
	Read bool
}

func (u Unknown) String() string {
	if u.Read {
		return u.Path + " (not in values.yaml, but a template reads it)"
	}
	return u.Path + " (not in values.yaml, and no template reads .Values." + u.Path + ")"
}

// UnknownValues are the paths the chart's values.yaml does not have. A
// path under a subchart's name is looked up in the subchart (helm passes
// values under the dependency's name to it). A path is known when the
// chart has it, or when the chart's value at a prefix of it is free-form:
// an empty map, null, or a list (the lab then fills what the chart leaves
// open, as resources or extraArgs).
func UnknownValues(c *Chart, paths []string) []Unknown {
	var out []Unknown
	for _, p := range paths {
		if !known(c, strings.Split(p, ".")) {
			out = append(out, Unknown{Path: p, Read: reads(c, strings.Split(p, "."))})
		}
	}
	return out
}

func known(c *Chart, keys []string) bool {
	if lookup(c.Values, keys) {
		return true
	}
	if sub, ok := c.Subcharts[keys[0]]; ok && len(keys) > 1 {
		return known(sub, keys[1:])
	}
	return false
}

func lookup(m map[string]any, keys []string) bool {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if len(mm) == 0 {
			return true // free-form
		}
		v, ok := mm[k]
		if !ok {
			return false
		}
		switch v.(type) {
		case nil, []any:
			return true // the chart leaves it open
		}
		cur = v
	}
	return true
}

func reads(c *Chart, keys []string) bool {
	if strings.Contains(c.Templates, ".Values."+strings.Join(keys, ".")) {
		return true
	}
	if sub, ok := c.Subcharts[keys[0]]; ok && len(keys) > 1 {
		return reads(sub, keys[1:])
	}
	return false
}

// chartLimits cap what ReadChart reads of an archive: a file, and all
// files together (the lab's largest chart, cert-manager's, is about 2 MiB
// unpacked).
var chartLimits = limits{file: 16 << 20, total: 64 << 20}

type limits struct{ file, total int64 }

// ReadChart reads a chart archive's values and templates, and those of the
// subcharts helm package wrote expanded under NAME/charts/SUB/ (helm
// v3.19.0 pkg/chartutil/save.go:229-234). A file over 16 MiB, or more than
// 64 MiB in all, is refused.
func ReadChart(archive string) (*Chart, error) {
	return readChart(archive, chartLimits)
}

func readChart(archive string, l limits) (*Chart, error) {
	f, err := os.Open(archive)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", archive, err)
	}
	files := map[string][]byte{}
	var total int64
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", archive, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(tr, l.file+1))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", archive, err)
		}
		if int64(len(b)) > l.file {
			return nil, fmt.Errorf("%s: %s is larger than %d MiB: not a chart this reads", archive, h.Name, l.file>>20)
		}
		if total += int64(len(b)); total > l.total {
			return nil, fmt.Errorf("%s: more than %d MiB of files: not a chart this reads", archive, l.total>>20)
		}
		files[path.Clean(h.Name)] = b
	}
	var top string
	for n := range files {
		if d, f := path.Split(n); f == "Chart.yaml" && strings.Count(d, "/") == 1 {
			top = strings.TrimSuffix(d, "/")
		}
	}
	if top == "" {
		return nil, fmt.Errorf("%s: no Chart.yaml under its top directory", archive)
	}
	return chartAt(files, top)
}

func chartAt(files map[string][]byte, dir string) (*Chart, error) {
	c := &Chart{Values: map[string]any{}, Subcharts: map[string]*Chart{}}
	if b, ok := files[dir+"/values.yaml"]; ok {
		if err := yaml.Unmarshal(b, &c.Values); err != nil {
			return nil, fmt.Errorf("%s/values.yaml: %w", dir, err)
		}
		if c.Values == nil {
			c.Values = map[string]any{}
		}
	}
	var t strings.Builder
	subs := map[string]bool{}
	for n, b := range files {
		rest, ok := strings.CutPrefix(n, dir+"/")
		if !ok {
			continue
		}
		if tpl, ok := strings.CutPrefix(rest, "templates/"); ok && tpl != "" {
			t.Write(b)
			t.WriteByte('\n')
		}
		if sub, ok := strings.CutPrefix(rest, "charts/"); ok {
			if name, file, ok := strings.Cut(sub, "/"); ok && file == "Chart.yaml" {
				subs[name] = true
			}
		}
	}
	c.Templates = t.String()
	for name := range subs {
		sc, err := chartAt(files, dir+"/charts/"+name)
		if err != nil {
			return nil, err
		}
		c.Subcharts[name] = sc
	}
	return c, nil
}

// Template runs `helm template` of the archive with v and returns the
// rendered manifests: the chart accepts the lab's values (its schema, its
// required values, its templates' fail calls) and renders.
func Template(ctx context.Context, h Helm, archive, release, namespace string, v Values, dir string) ([]byte, error) {
	args, err := v.args(dir)
	if err != nil {
		return nil, err
	}
	return h.Run(ctx, dir, append([]string{"template", release, archive, "--namespace", namespace}, args...)...)
}
