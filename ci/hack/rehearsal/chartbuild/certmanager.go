package chartbuild

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild"
)

// cert-manager's chart is not committed as a chart: make/manifests.mk
// (cert-manager v1.18.3) assembles $(bin_dir)/helm/cert-manager from
// deploy/charts/cert-manager and deploy/crds, then packages it. Paths and
// line numbers below are of that file at v1.18.3.
const (
	certManagerChartSrc = "deploy/charts/cert-manager"
	certManagerCRDs     = "deploy/crds"
)

// certManagerPrerelease is IS_PRERELEASE of cert-manager's Makefile:81:
// "true" when `git describe --tags --abbrev=0 --match='v*'` has a "-".
// At a release tag git describe is the tag itself.
func certManagerPrerelease(tag string) string {
	if strings.Contains(tag, "-") {
		return "true"
	}
	return "false"
}

// certManagerChartYAML is the Chart.yaml manifests.mk:119-126 writes with
// yq from Chart.template.yaml: annotations artifacthub.io/signKey = the
// whole of signkey_annotation.txt (read with `IFS= read -rd ”`, so its
// final newline stays), artifacthub.io/prerelease = IS_PRERELEASE, version
// and appVersion = VERSION. Order and the other keys stay; helm package
// re-marshals Chart.yaml anyway (helm v3.19.0 pkg/chartutil/save.go:168).
func certManagerChartYAML(template, signKey []byte, version string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(template, &doc); err != nil {
		return nil, fmt.Errorf("cert-manager Chart.template.yaml: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("cert-manager Chart.template.yaml: not a mapping")
	}
	root := doc.Content[0]
	ann := mapValue(root, "annotations", yaml.MappingNode)
	setString(ann, "artifacthub.io/signKey", string(signKey))
	setString(ann, "artifacthub.io/prerelease", certManagerPrerelease(version))
	setString(root, "version", version)
	setString(root, "appVersion", version)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// mapValue returns m's value of key, adding an empty one of kind.
func mapValue(m *yaml.Node, key string, kind yaml.Kind) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	v := &yaml.Node{Kind: kind}
	if kind == yaml.MappingNode {
		v.Tag = "!!map"
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
	return v
}

// setString sets m[key] to the string s (yq's strenv and "…" both make a
// string, also where it reads as a boolean: prerelease stays "false").
func setString(m *yaml.Node, key, s string) {
	v := mapValue(m, key, yaml.ScalarNode)
	*v = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.Contains(s, "\n") {
		v.Style = yaml.LiteralStyle
	} else if s == "true" || s == "false" {
		v.Style = yaml.DoubleQuotedStyle
	}
}

// certManagerREADME is manifests.mk:116-117: sed s:{{RELEASE_VERSION}}:VERSION:g.
func certManagerREADME(template []byte, version string) []byte {
	return bytes.ReplaceAll(template, []byte("{{RELEASE_VERSION}}"), []byte(version))
}

// concatYAML is hack/concat-yaml.sh (cert-manager v1.18.3): each file as
// it is, "\n---\n" between two files, and a refusal of any %YAML
// directive. manifests.mk:107-108 makes templates/crds.yaml with it from
// $(wildcard deploy/crds/*.yaml), which GNU make 4.3 and later sorts.
func concatYAML(files map[string][]byte) ([]byte, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	for i, n := range names {
		if bytes.Contains(files[n], []byte("%YAML")) {
			return nil, fmt.Errorf("%s: found %%YAML directive in file; concat-yaml.sh cannot handle it", n)
		}
		b.Write(files[n])
		if i < len(names)-1 {
			b.WriteString("\n---\n")
		}
	}
	return b.Bytes(), nil
}

// certManagerCopied says which files of deploy/charts/cert-manager
// manifests.mk copies unchanged into the chart, by their path there:
// templates/*.yaml (HELM_TEMPLATE_SOURCES, :18-19, rule :98-99, top level
// only), templates/_helpers.tpl (:101-102), templates/NOTES.txt (:104-105),
// values.yaml (:110-111) and values.schema.json (:113-114). Chart.template.yaml, README.template.md,
// signkey_annotation.txt, .helmignore, .gitignore and
// values.linter.exceptions are not in the chart.
func certManagerCopied(rel string) bool {
	switch rel {
	case "templates/_helpers.tpl", "templates/NOTES.txt", "values.yaml", "values.schema.json":
		return true
	}
	dir, file := filepath.Split(rel)
	return dir == "templates/" && strings.HasSuffix(file, ".yaml")
}

// makeCertManager assembles the chart directory as make/manifests.mk's
// $(bin_dir)/helm/cert-manager and returns it with the helm package flags
// of :90 (--app-version=VERSION --version=VERSION).
func makeCertManager(ctx context.Context, r Recipe, gitDir, work string) (string, []string, error) {
	src := filepath.Join(work, "src")
	if err := imagebuild.ExtractSnapshot(ctx, gitDir, r.snapshot(), src, certManagerChartSrc, certManagerCRDs); err != nil {
		return "", nil, err
	}
	version := r.Ref // VERSION = git describe at the tag (Makefile:79-80)
	out := filepath.Join(work, "cert-manager")
	chartSrc := filepath.Join(src, certManagerChartSrc)
	err := filepath.WalkDir(chartSrc, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(chartSrc, p)
		if !certManagerCopied(filepath.ToSlash(rel)) {
			return nil
		}
		return copyInto(p, filepath.Join(out, rel))
	})
	if err != nil {
		return "", nil, fmt.Errorf("cert-manager %s chart files: %w", r.Ref, err)
	}
	read := func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(chartSrc, name)) }
	tmpl, err := read("Chart.template.yaml")
	if err != nil {
		return "", nil, err
	}
	sign, err := read("signkey_annotation.txt")
	if err != nil {
		return "", nil, err
	}
	chartYAML, err := certManagerChartYAML(tmpl, sign, version)
	if err != nil {
		return "", nil, err
	}
	readme, err := read("README.template.md")
	if err != nil {
		return "", nil, err
	}
	crdFiles, err := filepath.Glob(filepath.Join(src, certManagerCRDs, "*.yaml"))
	if err != nil || len(crdFiles) == 0 {
		return "", nil, fmt.Errorf("cert-manager %s: no %s/*.yaml (%v)", r.Ref, certManagerCRDs, err)
	}
	crds := map[string][]byte{}
	for _, f := range crdFiles {
		if crds[filepath.Base(f)], err = os.ReadFile(f); err != nil {
			return "", nil, err
		}
	}
	crdYAML, err := concatYAML(crds)
	if err != nil {
		return "", nil, fmt.Errorf("cert-manager %s: %w", r.Ref, err)
	}
	for name, b := range map[string][]byte{"Chart.yaml": chartYAML, "README.md": certManagerREADME(readme, version),
		"templates/crds.yaml": crdYAML} {
		if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
			return "", nil, err
		}
	}
	return out, []string{"--app-version=" + version, "--version=" + version}, nil
}

func copyInto(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}
