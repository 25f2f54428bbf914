package lab

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxListedProblems is how many problems a validationError prints: enough to
// fix a file in one pass, few enough that a generated file with thousands of
// bad entries does not bury the terminal (one 51,010-tenant file printed
// 100,388 lines). The rest are counted.
const maxListedProblems = 50

// validationError carries every problem found in a lab file; it prints one
// problem per line so a user can fix them all in one pass.
type validationError struct{ Errs field.ErrorList }

func (e *validationError) Error() string {
	n := min(len(e.Errs), maxListedProblems)
	lines := make([]string, n, n+1)
	for i, err := range e.Errs[:n] {
		if err.Origin == originUnknownField {
			lines[i] = "  - " + err.Field + ": " + err.Detail // "Forbidden" would say less
			continue
		}
		lines[i] = "  - " + err.Error()
	}
	if more := len(e.Errs) - n; more > 0 {
		lines = append(lines, fmt.Sprintf("  … and %d more", more))
	}
	return fmt.Sprintf("%s in the lab:\n%s", Plural(len(e.Errs), "problem", "problems"), strings.Join(lines, "\n"))
}

// Plural is "1 tenant" or "3 tenants".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
