package moduletest

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"dagger/gpu-lab/labcmd"
)

// The README's first command is followed by a pointer to the dated
// "verified so far" list (ci/test/e2e/VERIFIED.md), so a user whose first run
// fails learns that the path may never have run.
func TestReadmeSaysWhatHasBeenVerified(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	first := strings.Index(readme, labcmd.CIRun)
	if first < 0 {
		t.Fatalf("README.md does not show %q", labcmd.CIRun)
	}
	pointer := strings.Index(readme, "(ci/test/e2e/VERIFIED.md)")
	if pointer < 0 {
		t.Fatal("README.md does not link ci/test/e2e/VERIFIED.md")
	}
	if pointer < first || strings.Count(readme[first:pointer], "\n") > 5 {
		t.Error("the link to what has been verified must follow the first `dagger call lab-test` command")
	}
	if !strings.Contains(readme[pointer:], "first-run failure") {
		t.Error("README.md does not ask for a first-run failure to be reported")
	}
	v, err := os.ReadFile("../../ci/test/e2e/VERIFIED.md")
	if err != nil {
		t.Fatal(err)
	}
	list := string(v)
	if regexp.MustCompile(`\*\*Verified so far \(\d{4}-\d{2}-\d{2}\)\.\*\*`).FindStringIndex(list) == nil {
		t.Fatal(`ci/test/e2e/VERIFIED.md has no "**Verified so far (YYYY-MM-DD).**" list`)
	}
	for _, want := range []string{"*Checked against real upstream pieces:*", "*Only against fakes", "*Never run:*"} {
		if !strings.Contains(list, want) {
			t.Errorf("ci/test/e2e/VERIFIED.md lacks %q", want)
		}
	}
}
