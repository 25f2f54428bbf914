package rehearsal

import (
	"bytes"
	"strings"
	"testing"
)

func TestAdaptationsAreComplete(t *testing.T) {
	checkComplete(t, Adaptations())
	checkComplete(t, ModuleAdaptations())
	checkComplete(t, DaggerAdaptations())
}

func checkComplete(t *testing.T, list []Adaptation) {
	t.Helper()
	if len(list) == 0 {
		t.Fatal("no adaptations listed")
	}
	seen := map[string]bool{}
	for _, a := range list {
		if a.Name == "" || a.What == "" || a.Reason == "" || a.Evidence == "" {
			t.Errorf("adaptation %+v lacks a field: each says what, why and what showed it", a)
		}
		if seen[a.Name] {
			t.Errorf("adaptation %q listed twice", a.Name)
		}
		seen[a.Name] = true
	}
	var buf bytes.Buffer
	if err := Print(&buf, list); err != nil {
		t.Fatal(err)
	}
	for _, a := range list {
		if !strings.Contains(buf.String(), a.Name) || !strings.Contains(buf.String(), a.Evidence) {
			t.Errorf("the printed list lacks %q or its evidence", a.Name)
		}
	}
}
