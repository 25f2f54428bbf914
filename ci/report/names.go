package report

import (
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// className is what CI test views show as a case's suite: the tenants it
// used, then its scenario when it runs in an ordered scenario, e.g.
// "tenant-a/card-sharing", "tenant-b" or "tenant-a+tenant-b".
func className(c *results.Case) string {
	t := strings.Join(c.Tenants, "+")
	if t == "" {
		t = "lab"
	}
	if c.Scenario == "" {
		return t
	}
	// The suite names a scenario by its cards ("tenant-a/worker card 0"):
	// the tenant is said once.
	return t + "/" + strings.TrimPrefix(c.Scenario, t+"/")
}

// caseName is unique per run, so CI views that de-duplicate on
// classname+name never drop a case.
func caseName(c *results.Case) string {
	if c.Title == "" {
		return c.ID
	}
	return c.ID + " " + c.Title
}

// truncate shortens s to at most n bytes on a rune boundary and says how
// much was cut, pointing readers to the full text.
func truncate(s string, n int, where string) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "\n… [truncated " + itoa(len(s)-cut) + " bytes; full text in " + where + "]"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// oneLine makes a message fit a table cell or an attribute summary.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return s
}
