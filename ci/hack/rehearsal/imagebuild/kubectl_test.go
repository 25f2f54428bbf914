package imagebuild

import (
	"strings"
	"testing"
)

func TestKubectlVersion(t *testing.T) {
	for _, c := range []struct {
		minor string
		lab   []string
		want  string
		exact bool
		ok    bool
	}{
		{"v1.35", []string{"v1.35.8", "v1.36.4"}, "v1.35.8", true, true},
		{"v1.35", []string{"v1.36.4"}, "v1.36.4", false, true},
		{"v1.35", []string{"v1.34.11", "v1.36.4"}, "v1.36.4", false, true},
		{"v1.35", []string{"v1.34.11"}, "v1.34.11", false, true},
		{"v1.35", []string{"v1.37.0"}, "", false, false},
		{"v1.35", nil, "", false, false},
		{"bogus", []string{"v1.36.4"}, "", false, false},
	} {
		v, exact, ok := kubectlVersion(c.minor, c.lab)
		if v != c.want || exact != c.exact || ok != c.ok {
			t.Errorf("KubectlVersion(%s, %v) = %s %v %v, want %s %v %v", c.minor, c.lab, v, exact, ok, c.want, c.exact, c.ok)
		}
	}
}

func TestDifferencesNameAKubectlOfAnotherMinor(t *testing.T) {
	p := Plan{Bundle: []recipe{recipeFor("clastix/kubectl:v1.35")}, Kubernetes: []string{"v1.36.4"}}
	if got := strings.Join(differences(p), "\n"); !strings.Contains(got, "clastix/kubectl:v1.35 holds kubectl v1.36.4") {
		t.Errorf("differences do not name the stand-in:\n%s", got)
	}
	p.Kubernetes = []string{"v1.35.8"}
	if got := strings.Join(differences(p), "\n"); strings.Contains(got, "holds kubectl") {
		t.Errorf("an exact minor is listed as a difference:\n%s", got)
	}
}
