package lab

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// goWords are what a lab-file message must not show a user who wrote YAML:
// the decoder's layers and Go's names for the lab's types.
var goWords = regexp.MustCompile(
	`JSON|json|Go struct|\bint(32|64)?\b|\bstring\b|GPUGroup|Tenant\b|Worker\b|Versions\b|HAMi\.|Ports\b|lab\.Lab`)

// TestLabFileShapeProblems: every unknown field is reported with its path
// and the field it was probably meant to be, and every value of the wrong
// kind names the field and what it must be, in words.
func TestLabFileShapeProblems(t *testing.T) {
	for _, tc := range []struct {
		name string
		yaml string
		want []string // every one a line of its own in the error
	}{
		{"typo in a tenant", one("  - name: a\n    workrs:\n      - {name: w, gpus: [{model: L4, count: 1}]}\n"),
			[]string{`tenants[0].workrs: unknown field "workrs": did you mean "workers"? (a tenant has name, ports, workers)`}},
		{"typo in a GPU group", one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: L4, count: 1, memory: 5}]}\n"),
			[]string{`tenants[0].workers[0].gpus[0].memory: unknown field "memory": ` +
				`did you mean "memoryMB"? (a GPU group has model, count, memoryMB, type)`}},
		{"wrong case", one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: L4, count: 1, memorymb: 5}]}\n"),
			[]string{`tenants[0].workers[0].gpus[0].memorymb: unknown field "memorymb": did you mean "memoryMB"?`}},
		{"typo under hami", "hami: {splitcont: 4}\n" + one("  - name: a\n"+okWorker),
			[]string{`hami.splitcont: unknown field "splitcont": did you mean "splitCount"? (hami has splitCount, nodeLockTimeout,`}},
		{"field in the wrong place", one("  - name: a\n    gpus: [{model: L4, count: 1}]\n" + okWorker),
			[]string{`tenants[0].gpus: unknown field "gpus": it belongs at tenants[].workers[].gpus, ` +
				`not in a tenant (a tenant has name, ports, workers)`}},
		{"nothing close", one("  - name: a\n"+okWorker) + "colour: blue\n",
			[]string{`colour: unknown field "colour" (the lab has apiVersion, kind, name, versions, hami, tenants)`}},
		{"every unknown field at once", "colour: blue\nversions: {kubernets: v1.36.4}\n" + one("  - name: a\n    prots: {}\n"+okWorker),
			[]string{`colour: unknown field "colour"`,
				`versions.kubernets: unknown field "kubernets": did you mean "kubernetes"?`,
				`tenants[0].prots: unknown field "prots": did you mean "ports"?`}},
		{"text for a number", one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: L4, count: two}]}\n"),
			[]string{`tenants[0].workers[0].gpus[0].count: Invalid value: "two": must be a whole number`}},
		{"fraction for a number", one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: L4, count: 2.5}]}\n"),
			[]string{`tenants[0].workers[0].gpus[0].count: Invalid value: 2.5: must be a whole number (no fraction or exponent)`}},
		{"port beyond 32 bits", one("  - name: a\n    ports: {apiServer: 99999999999}\n" + okWorker),
			[]string{`tenants[0].ports.apiServer: Invalid value: 99999999999: must be a whole number that fits in 32 bits`}},
		{"number for a list", "tenants: 3\n",
			[]string{`tenants: Invalid value: 3: must be a list of tenants`}},
		{"mapping for a list", "tenants: {name: a}\n",
			[]string{`tenants: Invalid value: must be a list of tenants, not a mapping`}},
		{"text for a GPU group", one("  - name: a\n    workers:\n      - {name: w, gpus: [L4]}\n"),
			[]string{`tenants[0].workers[0].gpus[0]: Invalid value: "L4": must be a mapping of fields (model, count, memoryMB, type)`}},
		{"list for text", one("  - name: [a, b]\n" + okWorker),
			[]string{`tenants[0].name: Invalid value: must be text, e.g. name: "...", not a list`}},
		{"mapping for a number", "hami: {kubeQPS: {value: 5}}\n" + one("  - name: a\n"+okWorker),
			[]string{`hami.kubeQPS: Invalid value: must be a whole number, not a mapping`}},
		{"wrong types and unknown fields together",
			one("  - name: a\n    workrs: []\n    workers:\n      - {name: w, gpus: [{model: L4, count: x}]}\n"),
			[]string{`tenants[0].workrs: unknown field "workrs"`, `tenants[0].workers[0].gpus[0].count: Invalid value: "x"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml))
			var ve *validationError
			if !errors.As(err, &ve) {
				t.Fatalf("want a list of problems, got %v for:\n%s", err, tc.yaml)
			}
			lines := strings.Split(err.Error(), "\n  - ")
			for _, w := range tc.want {
				found := false
				for _, l := range lines {
					found = found || strings.HasPrefix(l, w)
				}
				if !found {
					t.Errorf("no line starts with %q:\n%v", w, err)
				}
			}
			if len(ve.Errs) != len(tc.want) {
				t.Errorf("%d problems, want %d:\n%v", len(ve.Errs), len(tc.want), err)
			}
			if m := goWords.FindString(err.Error()); m != "" {
				t.Errorf("the message shows %q, a decoder or Go name:\n%v", m, err)
			}
		})
	}
}

// TestUnknownFieldsComeWithValidationErrors: a file with a typo is still
// validated in the same pass, without a second message for the typo.
func TestUnknownFieldsComeWithValidationErrors(t *testing.T) {
	src := one("  - name: a\n    workrs: []\n  - name: b\n    workers:\n      - {name: w, gpus: [{model: L4, count: 0}]}\n")
	_, err := Parse([]byte(src))
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{`tenants[0].workrs: unknown field "workrs": did you mean "workers"?`,
		"tenants[1].workers[0].gpus[0].count: Invalid value: 0"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("missing %q:\n%v", w, err)
		}
	}
	if strings.Contains(err.Error(), "tenants[0].workers: Required") {
		t.Errorf("the typo is reported twice:\n%v", err)
	}
}

// TestLabFileNotAMapping covers files that are no lab at all.
func TestLabFileNotAMapping(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"- a\n- b\n", "the lab file must be a mapping of fields (apiVersion, kind, name, versions, hami, tenants), not a list"},
		{"tenants\n", "the lab file must be a mapping of fields (apiVersion, kind, name, versions, hami, tenants), not text"},
		{"name: a\nname: b\n", `the file is not valid YAML: line 2: key "name" already set in map`},
		{"tenants:\n  - name: a\n    name: b\n", `the file is not valid YAML: line 3: key "name" already set in map`},
		{"tenants: [\n", "the file is not valid YAML: line 1:"},
	} {
		_, err := Parse([]byte(tc.yaml))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want prefix %q", tc.yaml, err, tc.want)
		}
		if err != nil && goWords.MatchString(err.Error()) {
			t.Errorf("Parse(%q): message shows a decoder or Go name: %v", tc.yaml, err)
		}
	}
}

func TestNearestFieldName(t *testing.T) {
	known := []string{"name", "ports", "workers"}
	for _, tc := range []struct{ in, want string }{
		{"workrs", "workers"}, {"wokers", "workers"}, {"Workers", "workers"}, {"nme", "name"},
		{"port", "ports"}, {"colour", ""}, {"gpus", ""}, {"x", ""}, {"", ""},
	} {
		if got := nearest(tc.in, known); got != tc.want {
			t.Errorf("nearest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"workrs", "workers", 1}, {"kitten", "sitting", 3},
		{"memory", "memorymb", 2}, {"ä", "a", 1}, {"prots", "ports", 1}, {"ab", "ba", 1}} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
