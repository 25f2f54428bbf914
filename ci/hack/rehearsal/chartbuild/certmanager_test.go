package chartbuild

import (
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// The shape of cert-manager v1.18.3 deploy/charts/cert-manager/
// Chart.template.yaml (abridged: the keys the build touches and their
// neighbours).
const certManagerTemplate = `apiVersion: v2

name: cert-manager
description: A Helm chart for cert-manager
annotations:
  artifacthub.io/license: Apache-2.0
  artifacthub.io/prerelease: "{{IS_PRERELEASE}}"
kubeVersion: ">= 1.22.0-0"

# The version and appVersion fields are set automatically by the release tool
version: v0.0.0
appVersion: v0.0.0
`

func TestCertManagerChartYAML(t *testing.T) {
	sign := "-----BEGIN PGP PUBLIC KEY BLOCK-----\nabc\n-----END PGP PUBLIC KEY BLOCK-----\nname: cert-manager-maintainers\n" +
		"file: https://example/key.gpg\n"
	out, err := certManagerChartYAML([]byte(certManagerTemplate), []byte(sign), "v1.18.3")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Name        string            `yaml:"name"`
		Version     string            `yaml:"version"`
		AppVersion  string            `yaml:"appVersion"`
		KubeVersion string            `yaml:"kubeVersion"`
		Annotations map[string]string `yaml:"annotations"`
	}
	if err := yaml.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if got.Name != "cert-manager" || got.Version != "v1.18.3" || got.AppVersion != "v1.18.3" || got.KubeVersion != ">= 1.22.0-0" {
		t.Errorf("Chart.yaml:\n%s", out)
	}
	if got.Annotations["artifacthub.io/signKey"] != sign {
		t.Errorf("signKey = %q, want the whole file with its final newline", got.Annotations["artifacthub.io/signKey"])
	}
	if got.Annotations["artifacthub.io/prerelease"] != "false" || got.Annotations["artifacthub.io/license"] != "Apache-2.0" {
		t.Errorf("annotations = %v", got.Annotations)
	}
	// prerelease stays a string (yq writes "false"), and the order stays.
	s := string(out)
	if !strings.Contains(s, `artifacthub.io/prerelease: "false"`) {
		t.Errorf("prerelease is not a quoted string:\n%s", s)
	}
	if strings.Index(s, "name:") > strings.Index(s, "version:") || strings.Index(s, "version:") > strings.Index(s, "appVersion:") {
		t.Errorf("key order changed:\n%s", s)
	}
	if _, err := certManagerChartYAML([]byte("- a\n"), nil, "v1"); err == nil {
		t.Error("a template that is no mapping was accepted")
	}
}

func TestCertManagerPrerelease(t *testing.T) {
	for tag, want := range map[string]string{"v1.18.3": "false", "v1.19.0-alpha.1": "true", "v1.18.0-beta.0": "true"} {
		if got := certManagerPrerelease(tag); got != want {
			t.Errorf("CertManagerPrerelease(%s) = %s, want %s", tag, got, want)
		}
	}
}

func TestCertManagerREADME(t *testing.T) {
	got := string(certManagerREADME([]byte("helm install --version {{RELEASE_VERSION}}\nimage {{RELEASE_VERSION}}\n"), "v1.18.3"))
	if got != "helm install --version v1.18.3\nimage v1.18.3\n" {
		t.Errorf("README = %q", got)
	}
}

func TestConcatYAML(t *testing.T) {
	// deploy/crds at v1.18.3 has six crd-*.yaml; the order is the sorted one.
	got, err := concatYAML(map[string][]byte{"crd-issuers.yaml": []byte("b: 1\n"), "crd-certificates.yaml": []byte("a: 1\n"),
		"crd-orders.yaml": []byte("c: 1")})
	if err != nil {
		t.Fatal(err)
	}
	if want := "a: 1\n\n---\nb: 1\n\n---\nc: 1"; string(got) != want {
		t.Errorf("ConcatYAML = %q, want %q", got, want)
	}
	if _, err := concatYAML(map[string][]byte{"x.yaml": []byte("%YAML 1.2\n---\na: 1\n")}); err == nil {
		t.Error("a %YAML directive was accepted")
	}
}

func TestCertManagerCopied(t *testing.T) {
	for rel, want := range map[string]bool{
		"templates/deployment.yaml": true,
		"templates/_helpers.tpl":    true,
		"templates/NOTES.txt":       true,
		"values.yaml":               true,
		"values.schema.json":        true,
		"Chart.template.yaml":       false,
		"README.template.md":        false,
		"signkey_annotation.txt":    false,
		".helmignore":               false,
		".gitignore":                false,
		"values.linter.exceptions":  false,
		"templates/sub/x.yaml":      false,
		"templates/other.tpl":       false,
	} {
		if got := certManagerCopied(rel); got != want {
			t.Errorf("CertManagerCopied(%s) = %v, want %v", rel, got, want)
		}
	}
}
