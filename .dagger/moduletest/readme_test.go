package moduletest

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"dagger/gpu-lab/labcmd"
)

// The README's first command comes with a dated "verified so far" list, so a
// user whose first run fails learns that the path may never have run.
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
	verified := regexp.MustCompile(`\*\*Verified so far \(\d{4}-\d{2}-\d{2}\)\.\*\*`).FindStringIndex(readme)
	if verified == nil {
		t.Fatal(`README.md has no "**Verified so far (YYYY-MM-DD).**" list`)
	}
	if verified[0] < first || strings.Count(readme[first:verified[0]], "\n") > 3 {
		t.Error("the verified-so-far list must follow the first `dagger call lab-test` command")
	}
	list := readme[verified[0]:]
	if end := strings.Index(list, "\n\n"+"Run the project's tests"); end > 0 {
		list = list[:end]
	}
	for _, want := range []string{"*Checked against real upstream pieces:*", "*Only against fakes", "*Never run:*", "first-run failure"} {
		if !strings.Contains(list, want) {
			t.Errorf("the verified-so-far list lacks %q", want)
		}
	}
}
