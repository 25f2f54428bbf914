// Package readmeblock keeps a generated block of a Markdown file equal to
// the code it documents: tests call Sync with the text the code generates,
// and fail (or, with their -update flag, rewrite the block) when the file
// says something else.
package readmeblock

import (
	"fmt"
	"os"
	"strings"
)

// Sync compares the block between "<!-- name:start -->" and
// "<!-- name:end -->" in the file at path with want. It returns the block's
// current text and whether it differs; with update it rewrites the block.
func Sync(path, name, want string, update bool) (got string, stale bool, err error) {
	start, end := "<!-- "+name+":start -->\n", "<!-- "+name+":end -->"
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false, err
	}
	s := string(b)
	i, j := strings.Index(s, start), strings.Index(s, end)
	if i < 0 || j < i {
		return "", false, fmt.Errorf("%s lacks the %q ... %q markers", path, strings.TrimSpace(start), end)
	}
	got = s[i+len(start) : j]
	if got == want {
		return got, false, nil
	}
	if update {
		return got, false, os.WriteFile(path, []byte(s[:i+len(start)]+want+s[j:]), 0o644)
	}
	return got, true, nil
}
