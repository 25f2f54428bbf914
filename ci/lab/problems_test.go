package lab

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// problems parses src and returns its problems, one string each, as the
// user sees them (without the list's "  - "); it fails the test when src
// parses or the error is no list of problems.
func problems(t *testing.T, src string, f format) []string {
	t.Helper()
	_, err := parseFormat([]byte(src), f)
	var ve *validationError
	if !errors.As(err, &ve) {
		t.Fatalf("want a list of problems, got %v for:\n%s", err, src)
	}
	lines := strings.Split(err.Error(), "\n")[1:]
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "  - ")
	}
	return lines
}

// wantProblems checks that src has exactly the problems want, in order.
func wantProblems(t *testing.T, src string, f format, want ...string) {
	t.Helper()
	got := problems(t, src, f)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems of\n%s\ngot:\n  %s\nwant:\n  %s", src, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func listOf(n int) *validationError {
	ve := &validationError{}
	for i := range n {
		ve.Errs = append(ve.Errs, field.Invalid(field.NewPath("tenants").Index(i).Child("name"), "X", "bad"))
	}
	return ve
}

func TestProblemCountIsPluralised(t *testing.T) {
	for n, want := range map[int]string{1: "1 problem in the lab:", 2: "2 problems in the lab:"} {
		if got := strings.SplitN(listOf(n).Error(), "\n", 2)[0]; got != want {
			t.Errorf("%d problems: %q, want %q", n, got, want)
		}
	}
}

// TestProblemListIsCapped: the first maxListedProblems problems are
// printed, the rest counted.
func TestProblemListIsCapped(t *testing.T) {
	for _, n := range []int{maxListedProblems, maxListedProblems + 1, 120} {
		lines := strings.Split(listOf(n).Error(), "\n")
		shown := min(n, maxListedProblems)
		if lines[0] != fmt.Sprintf("%d problems in the lab:", n) {
			t.Errorf("%d problems: heading %q", n, lines[0])
		}
		if last := lines[shown]; last != fmt.Sprintf(`  - tenants[%d].name: Invalid value: "X": bad`, shown-1) {
			t.Errorf("%d problems: last shown %q", n, last)
		}
		more := ""
		if n > shown {
			more = fmt.Sprintf("  … and %d more", n-shown)
		}
		if got := strings.Join(lines[1+shown:], "\n"); got != more {
			t.Errorf("%d problems: after the list %q, want %q", n, got, more)
		}
	}
}

// TestThousandsOfTenantsIsOneProblem: a generated file with far too many
// tenants, all without ports, is one problem, not one line per tenant
// whose ports the allocator could not fill (that would blame ports the user
// never wrote).
func TestThousandsOfTenantsIsOneProblem(t *testing.T) {
	var b strings.Builder
	b.WriteString("tenants:\n")
	n := 0
	for ; b.Len() < maxFileBytes-200; n++ {
		fmt.Fprintf(&b, "- {name: t%d, workers: [{name: w, gpus: [{model: L4, count: 1}]}]}\n", n)
	}
	if free := 2 * (maxNodePort - defaultAPIServerPort + 1); n < free {
		t.Fatalf("only %d tenants: the allocator would not run out", n)
	}
	wantProblems(t, b.String(), formatYAML, fmt.Sprintf("tenants: Too many: %d: must have at most %d items", n, MaxTenants))
}
