package render

import (
	"strings"
	"testing"
)

func mustSplitYAMLDocs(t testing.TB, b []byte) []string {
	t.Helper()
	docs, err := splitYAMLDocs(b)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

func TestSplitYAMLDocs(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // documents, or nil for an error
	}{
		{"helm's stream", "---\n# Source: hami/templates/a.yaml\na: 1\n---\n# Source: hami/templates/b.yaml\nb: 2\n",
			[]string{"# Source: hami/templates/a.yaml\na: 1\n", "# Source: hami/templates/b.yaml\nb: 2\n"}},
		{"empty documents dropped", "---\n---\n\na: 1\n---\n   \n", []string{"\na: 1\n"}},
		// The hand-written split kept "--- # note" as a line of the document.
		{"a separator with a comment", "a: 1\n--- # note\nb: 2", []string{"a: 1\n", "b: 2\n"}},
		{"a separator with content", "a: 1\n---b: 2\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := splitYAMLDocs([]byte(tc.in))
			if tc.want == nil {
				if err == nil {
					t.Fatalf("split %q = %q, want an error", tc.in, got)
				}
				return
			}
			if err != nil || strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
				t.Errorf("split = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
