package gobuild

import (
	"os"
	"reflect"
	"testing"
)

// Recorded: k8s.io/kubernetes v1.37.0's go.mod (testdata/README.md).
func TestReadGoModFactsOfKubernetes(t *testing.T) {
	facts, err := ReadGoModFacts("testdata/kubernetes-v1.37.0.mod.excerpt")
	if err != nil {
		t.Fatal(err)
	}
	want := GoModFacts{Go: "1.26.0", Godebug: "default=go1.26", Staging: []string{"k8s.io/api", "k8s.io/apiextensions-apiserver",
		"k8s.io/apimachinery"}}
	if !reflect.DeepEqual(facts, want) {
		t.Errorf("facts = %+v, want %+v", facts, want)
	}
	b, err := os.ReadFile("testdata/kubernetes-v1.37.0.mod.excerpt")
	if err != nil {
		t.Fatal(err)
	}
	if got := parseGoModFacts(string(b)); !reflect.DeepEqual(got, want) {
		t.Errorf("ParseGoModFacts = %+v, want %+v", got, want)
	}
}

// A single-line replace to a published version is not a staging module.
func TestParseGoModFactsOnlyTakesStagingReplaces(t *testing.T) {
	got := parseGoModFacts("module x\n\ngo 1.25\nreplace a.example/b => a.example/b v1.2.3\nreplace k8s.io/api => ./staging/src/k8s.io/api\n")
	want := GoModFacts{Go: "1.25", Staging: []string{"k8s.io/api"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("facts = %+v, want %+v", got, want)
	}
}
