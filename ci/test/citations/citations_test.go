package citations

import (
	"reflect"
	"testing"
)

func TestFind(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []Citation
	}{
		{"one section", "// as observed (HAMI-FACTS.md §5.2).", []Citation{{Doc: "HAMI-FACTS.md", Section: "5.2", Line: 1}}},
		{"chained", "x\n// (HAMI-FACTS.md §2, §3e and §4.3/§5)", []Citation{
			{Doc: "HAMI-FACTS.md", Section: "2", Line: 2}, {Doc: "HAMI-FACTS.md", Section: "3e", Line: 2},
			{Doc: "HAMI-FACTS.md", Section: "4.3", Line: 2}, {Doc: "HAMI-FACTS.md", Section: "5", Line: 2}}},
		{"path and anchor", "see ci/render/UPSTREAM-FACTS.md#provenance",
			[]Citation{{Doc: "ci/render/UPSTREAM-FACTS.md", Section: "provenance", Anchor: true, Line: 1}}},
		{"backquoted", "(`../HAMI-FACTS.md` §1, round 2)", []Citation{{Doc: "../HAMI-FACTS.md", Section: "1", Line: 1}}},
		{"url is not ours", "https://github.com/x/y/blob/main/README.md#install", nil},
		{"no section", "the README.md beside it", nil},
		{"RFC section", "as RFC 8259 §4 advises", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := find(tc.text); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Find(%q) = %+v, want %+v", tc.text, got, tc.want)
			}
		})
	}
}

func TestHeadings(t *testing.T) {
	doc := "# Title\n## 1. Provenance: how\n### 3e. Delete race\n### 5.2 Registration is late\n```\n## 9. in a code block\n```\n## Notes\n"
	nums, anchors := headings(doc)
	for _, n := range []string{"1", "3e", "5.2"} {
		if !nums[n] {
			t.Errorf("section %s not found in %v", n, nums)
		}
	}
	if nums["9"] {
		t.Errorf("a heading inside a code block counted: %v", nums)
	}
	for _, a := range []string{"title", "1-provenance-how", "3e-delete-race", "notes"} {
		if !anchors[a] {
			t.Errorf("anchor %s not found in %v", a, anchors)
		}
	}
}

func TestForbidden(t *testing.T) {
	for line, want := range map[string]int{
		"// (" + "hami-" + "observed.md §7.2)":             1,
		"// shared/" + "research/" + "kamaji" + ".md §3.4": 2,
		"// HAMI-FACTS.md §5.2":                            0,
		"// Timeouts follow the Research " + "Notes.":      1,
	} {
		if got := forbidden(line); len(got) != want {
			t.Errorf("Forbidden(%q) = %v, want %d names", line, got, want)
		}
	}
}
