package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// goNames are what a labctl message must not show a user: Go types and
// fields of the suite's configuration.
var goNames = regexp.MustCompile(`rest\.Config|Tenants has|suite config|\*?lab\.Lab|map\[`)

func TestCheckKubeconfigTenants(t *testing.T) {
	seed := lab.Default() // tenant-a, tenant-b
	for _, tc := range []struct {
		name    string
		flags   []string
		labFile string
		want    []string // substrings; none means no error
	}{
		{"every tenant once", []string{"tenant-a=a.yaml", "tenant-b=b.yaml"}, "", nil},
		{"a name the lab does not have", []string{"tenant-a=a.yaml", "tenant-b=b.yaml", "tenant-x=x.yaml"}, "",
			[]string{`--kubeconfig tenant-x=x.yaml: the seed lab gpu-lab (no -f given) has no tenant "tenant-x"; ` +
				`its tenants are tenant-a, tenant-b`, "pass it with -f"}},
		{"a name not in the lab file", []string{"prod=p.yaml"}, "my.yaml",
			[]string{`--kubeconfig prod=p.yaml: lab gpu-lab (from my.yaml) has no tenant "prod"`,
				"no --kubeconfig for tenant-a, tenant-b of lab gpu-lab (from my.yaml)"}},
		{"a tenant left out", []string{"tenant-a=a.yaml"}, "",
			[]string{"no --kubeconfig for tenant-b of the seed lab gpu-lab (no -f given)", "--kubeconfig tenant-b=PATH"}},
		{"a tenant twice", []string{"tenant-a=a.yaml", "tenant-b=b.yaml", "tenant-a=c.yaml"}, "",
			[]string{"--kubeconfig tenant-a=c.yaml: tenant tenant-a already has --kubeconfig tenant-a=a.yaml"}},
		{"malformed flags are the caller's to report", []string{"tenant-a=a.yaml", "tenant-b=b.yaml", "nonsense"}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkKubeconfigTenants(seed, tc.flags, tc.labFile)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if m := goNames.FindString(err.Error()); m != "" {
				t.Errorf("error shows the Go name %q:\n%v", m, err)
			}
		})
	}
}

// TestTestTargetRejectsUnknownKubeconfigTenant: `labctl test --kubeconfig
// tenant-x=…` against the seed lab is refused before the suite starts,
// naming the lab's tenants, rather than failing inside the suite with
// "Tenants has no rest.Config for tenant-a, tenant-b".
func TestTestTargetRejectsUnknownKubeconfigTenant(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.kubeconfig")
	if err := os.WriteFile(p, []byte(kubeconfigYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := testTarget(testFlags{kubeconfigs: []string{"tenant-x=" + p}})
	if err == nil || !strings.Contains(err.Error(), `has no tenant "tenant-x"; its tenants are tenant-a, tenant-b`) {
		t.Fatalf("err = %v, want one naming tenant-x and the lab's tenants", err)
	}
	if m := goNames.FindString(err.Error()); m != "" {
		t.Errorf("error shows the Go name %q:\n%v", m, err)
	}
}

// TestKubeconfigCommandUnknownTenant: `labctl kubeconfig` with a name the
// lab does not have lists the lab's tenants in words.
func TestKubeconfigCommandUnknownTenant(t *testing.T) {
	d := writeLocalEnvState(t, []byte(kubeconfigYAML))
	_, _, err := run(t, newKubeconfigCommand, "--state-dir", string(d), "tenant-x")
	want := `lab gpu-lab has no tenant "tenant-x": use one of tenant-a, tenant-b, or management for the management cluster`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if _, _, err := run(t, newKubeconfigCommand, "--state-dir", string(d), "management"); err == nil ||
		!strings.Contains(err.Error(), "the local test environment, which has no management cluster") {
		t.Errorf("management of a local environment: %v", err)
	}
	out, _, err := run(t, newKubeconfigCommand, "--state-dir", string(d), "--path", "tenant-b")
	if err != nil || strings.TrimSpace(out) != d.Kubeconfig("tenant-b") {
		t.Errorf("labctl kubeconfig --path tenant-b = %q, %v", out, err)
	}
}
