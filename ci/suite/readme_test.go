package suite

import (
	"flag"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/internal/readmeblock"
)

var update = flag.Bool("update", false, "rewrite the case table in ci/suite/README.md")

// caseTable is ci/suite/README.md's case table, made from the catalog so
// the document lists the cases the suite runs, in its words.
func caseTable() string {
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	var b strings.Builder
	var core []string
	for _, c := range Cases() {
		if c.Core {
			core = append(core, c.ID)
		}
	}
	b.WriteString("The core cases, the seed lab's checks: " + strings.Join(core, ", ") + ".\n\n")
	b.WriteString("| ID | case | what it asserts | what it needs |\n|---|---|---|---|\n")
	for _, c := range Cases() {
		b.WriteString("| " + c.ID + " | " + cell(c.Title) + " | " + cell(c.Asserts) + " | " + cell(c.Needs) + " |\n")
	}
	return b.String()
}

// TestReadmeCaseTable keeps ci/suite/README.md's case table equal to the
// catalog. Regenerate with: go test ./ci/suite -run TestReadmeCaseTable -update
func TestReadmeCaseTable(t *testing.T) {
	want := caseTable()
	got, stale, err := readmeblock.Sync("README.md", "case-table", want, *update)
	if err != nil {
		t.Fatal(err)
	}
	if stale {
		t.Errorf("ci/suite/README.md's case table is out of date: run go test ./ci/suite -run TestReadmeCaseTable -update\n--- README ---\n%s\n"+
			"--- generated ---\n%s", got, want)
	}
}

// TestCaseTableListsEveryCase: the table has a row per case of the
// catalog and names each core case, so a case added to the catalog shows
// up in the document once it is regenerated.
func TestCaseTableListsEveryCase(t *testing.T) {
	table := caseTable()
	for _, c := range Cases() {
		if !strings.Contains(table, "\n| "+c.ID+" | "+c.Title+" |") {
			t.Errorf("the case table has no row for %s", c.ID)
		}
	}
	if !strings.Contains(table, "TC-01, ") || strings.Contains(table, "checks: TC-09") {
		t.Errorf("the core list is wrong:\n%s", table)
	}
}
