package citations

import (
	"regexp"
	"strings"
)

// Citation is one "FILE.md §N" or "FILE.md#anchor" reference in a text.
type Citation struct {
	Doc string // the path as written, e.g. HAMI-FACTS.md or ci/render/UPSTREAM-FACTS.md
	// Section is a section number ("5.2", "3e") or, for a #-citation, an
	// anchor ("provenance").
	Section string
	Anchor  bool
	Line    int
}

const sectionNum = `[0-9]+[a-z]?(?:\.[0-9]+)*`

var (
	// A doc name (perhaps in backquotes), then either § sections (chained by
	// ",", "/" or "and") or an anchor.
	citationRE = regexp.MustCompile(`([A-Za-z0-9_./-]+\.md)(?:` + "`" + `?\s+§\s*(` + sectionNum +
		`)((?:\s*(?:,|/|and)\s*§\s*` + sectionNum + `)*)|#([a-z0-9_-]+))`)
	chainedRE = regexp.MustCompile(`§\s*(` + sectionNum + `)`)
	headingRE = regexp.MustCompile(`^#{1,6}\s+(.+?)\s*#*\s*$`)
	headNumRE = regexp.MustCompile(`^(` + sectionNum + `)(?:[.:)]|\s|$)`)
)

// find returns the document citations in text, in order.
func find(text string) []Citation {
	var out []Citation
	for i, line := range strings.Split(text, "\n") {
		for _, m := range citationRE.FindAllStringSubmatchIndex(line, -1) {
			// A URL (https://…/README.md#x) cites a page outside the repository.
			if m[0] > 0 && line[m[0]-1] == ':' || strings.HasPrefix(line[m[2]:m[3]], "//") {
				continue
			}
			doc := line[m[2]:m[3]]
			if m[8] >= 0 {
				out = append(out, Citation{Doc: doc, Section: line[m[8]:m[9]], Anchor: true, Line: i + 1})
				continue
			}
			out = append(out, Citation{Doc: doc, Section: line[m[4]:m[5]], Line: i + 1})
			for _, c := range chainedRE.FindAllStringSubmatch(line[m[6]:m[7]], -1) {
				out = append(out, Citation{Doc: doc, Section: c[1], Line: i + 1})
			}
		}
	}
	return out
}

// headings returns the section numbers and the GitHub anchors of a
// Markdown document's headings (fenced code blocks skipped).
func headings(doc string) (numbers, anchors map[string]bool) {
	numbers, anchors = map[string]bool{}, map[string]bool{}
	fenced := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		m := headingRE.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		if n := headNumRE.FindStringSubmatch(m[1]); n != nil {
			numbers[n[1]] = true
		}
		anchors[anchor(m[1])] = true
	}
	return numbers, anchors
}

// anchor is GitHub's anchor for a heading: lower case, punctuation other
// than "-" and "_" dropped, spaces turned into "-".
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && isLetter(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isLetter(r rune) bool { return strings.ToUpper(string(r)) != strings.ToLower(string(r)) }

// forbidden returns the names of the out-of-repository research notes in
// line, if it cites any. The names are assembled so that this file does not
// cite them itself.
func forbidden(line string) []string {
	var hit []string
	lower := strings.ToLower(line)
	for _, name := range forbiddenNames {
		if strings.Contains(lower, name) {
			hit = append(hit, name)
		}
	}
	return hit
}

var forbiddenNames = []string{
	"shared/" + "research",
	"hami-" + "observed",
	"hami" + ".md",
	"anchors" + ".md",
	"kamaji" + ".md",
	"dagger" + ".md",
	"local-" + "backend",
	"research " + "note", // "follows the research notes": which, where?
}
