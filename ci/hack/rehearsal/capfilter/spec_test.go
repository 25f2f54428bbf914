package capfilter

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

func load(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// capSets returns the capability sets of a spec (or of a process object).
func capSets(t *testing.T, doc []byte, spec bool) map[string][]string {
	t.Helper()
	var v struct {
		Process      *struct{ Capabilities map[string][]string } `json:"process"`
		Capabilities map[string][]string                         `json:"capabilities"`
	}
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	if spec {
		return v.Process.Capabilities
	}
	return v.Capabilities
}

// withoutCaps decodes a document and deletes its capabilities, so that the
// rest of two documents can be compared.
func withoutCaps(t *testing.T, doc []byte, spec bool) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	if spec {
		delete(m["process"].(map[string]any), "capabilities")
	} else {
		delete(m, "capabilities")
	}
	return m
}

func without(list []string, drop string) []string {
	var out []string
	for _, c := range list {
		if c != drop {
			out = append(out, c)
		}
	}
	return out
}

func TestFilterRecorded(t *testing.T) {
	for _, tc := range []struct {
		file        string
		spec        bool
		wantRemoved []string
	}{
		{"config-privileged.json", true, []string{"CAP_SYS_RESOURCE"}},
		{"process-exec.json", false, []string{"CAP_SYS_RESOURCE"}},
		// Docker's default set has no CAP_SYS_RESOURCE: passed on byte for byte.
		{"config-default.json", true, nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			in := load(t, tc.file)
			filter := FilterProcess
			if tc.spec {
				filter = FilterSpec
			}
			out, removed, err := filter(in, []string{"CAP_SYS_RESOURCE"})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(removed, tc.wantRemoved) {
				t.Fatalf("removed %v, want %v", removed, tc.wantRemoved)
			}
			if tc.wantRemoved == nil {
				if !bytes.Equal(out, in) {
					t.Fatal("a document with nothing to remove was changed")
				}
				return
			}
			before, after := capSets(t, in, tc.spec), capSets(t, out, tc.spec)
			if len(before) == 0 {
				t.Fatal("the recorded document has no capability sets")
			}
			for set, caps := range before {
				if want := without(caps, "CAP_SYS_RESOURCE"); !reflect.DeepEqual(after[set], want) || len(want) != len(caps)-1 {
					t.Errorf("set %s = %v, want %v (the recorded set less CAP_SYS_RESOURCE)", set, after[set], want)
				}
			}
			if !reflect.DeepEqual(withoutCaps(t, in, tc.spec), withoutCaps(t, out, tc.spec)) {
				t.Error("fields other than the capabilities changed")
			}
		})
	}
}

func TestFilterSpecEdgeCases(t *testing.T) {
	drop := []string{"CAP_SYS_RESOURCE"}
	for _, tc := range []struct {
		name, in string
		wantErr  bool
		changed  bool
	}{
		{"no process", `{"ociVersion":"1.0.2"}`, false, false},
		{"null capabilities", `{"process":{"capabilities":null}}`, false, false},
		{"null set", `{"process":{"capabilities":{"bounding":null,"effective":["CAP_SYS_RESOURCE"]}}}`, false, true},
		{"not an object", `[1]`, true, false},
		{"set not a list", `{"process":{"capabilities":{"bounding":"CAP_SYS_RESOURCE"}}}`, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, removed, err := FilterSpec([]byte(tc.in), drop)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if changed := len(removed) > 0; changed != tc.changed || changed == (string(out) == tc.in) {
				t.Fatalf("removed %v, out %s", removed, out)
			}
		})
	}
}
