package lab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const jsonLab = `{"name": "j", "tenants": [{"name": "a", "workers": [{"name": "w", "gpus": [{"model": "L4", "count": 1}]}]}]}`

// TestJSONFileFollowsJSONRules: a .json file is read as JSON, so JSON's
// rules apply and its errors say JSON, with line and column.
func TestJSONFileFollowsJSONRules(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"duplicate key", "{\"name\": \"a\",\n \"name\": \"b\"}",
			`the file is not valid JSON: line 2, column 2: key "name" appears twice in one object`},
		{"duplicate nested key", `{"tenants": [{"name": "a", "workers": [], "workers": []}]}`,
			`the file is not valid JSON: line 1, column 43: key "workers" appears twice in one object`},
		{"trailing comma in an object", "{\"name\": \"a\",\n}", `the file is not valid JSON: line 2, ` +
			`column 1: invalid character '}' looking for beginning of object key string`},
		{"trailing comma in a list", `{"tenants": [{"name": "a"},]}`,
			`the file is not valid JSON: line 1, column 28: invalid character ']' looking for beginning of value`},
		{"a comment", "{\"name\": \"a\" # c\n}",
			`the file is not valid JSON: line 1, column 14: invalid character '#' after object key:value pair`},
		{"YAML in a .json file", "name: a\n",
			`the file is not valid JSON: line 1, column 2: invalid character 'a' in literal null (expecting 'u')`},
		{"cut short", `{"name": "a"`, `the file is not valid JSON: line 1, column 13: the file ends before the value does`},
		{"two values", `{} {}`, `the file is not valid JSON: line 1, column 5: { after the end of the top-level value`},
		{"nested deeper than a lab", strings.Repeat("[", 40) + strings.Repeat("]", 40),
			`the file is not valid JSON: line 1, column 34: values nested more than 32 deep; a lab file nests at most 7`},
		{"not an object", `[1]`, `the lab file must be a mapping of fields (apiVersion, kind, name, versions, hami, tenants), not a list`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseFormat([]byte(tc.src), formatJSON)
			if err == nil || err.Error() != tc.want {
				t.Errorf("ParseFormat(%q, JSON) = %v, want %s", tc.src, err, tc.want)
			}
		})
	}
}

// TestJSONFileIsValidated: a JSON lab gets the same checks and messages as
// a YAML one, and a valid one loads by its .json name.
func TestJSONFileIsValidated(t *testing.T) {
	wantProblems(t, `{"hami": {"splitCount": "ten"}, "tenants": [{"name": "a", "wrkers": []}]}`, formatJSON,
		`hami.splitCount: Invalid value: "ten": must be a whole number`,
		`tenants[0].wrkers: unknown field "wrkers": did you mean "workers"? (a tenant has name, ports, workers)`)
	dir := t.TempDir()
	for name, src := range map[string]string{"lab.json": jsonLab, "LAB.JSON": jsonLab, "lab.yaml": jsonLab} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		if l, err := Load(p); err != nil || l.Name != "j" {
			t.Errorf("Load(%s) = %v", name, err)
		}
	}
	// The same duplicate key is JSON's problem in a .json file and YAML's
	// in a .yaml one.
	dup := `{"name": "a", "name": "b"}`
	for name, want := range map[string]string{"dup.json": "not valid JSON", "dup.yaml": "not valid YAML"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(dup), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%s) = %v, want %q", name, err, want)
		}
	}
}
