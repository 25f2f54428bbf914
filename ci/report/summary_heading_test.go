package report

import (
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// summary.md's heading holds the lab name from results.json, which
// `labctl report --from` reads from anywhere: it stays text on one line.
func TestSummaryHeadingEscapesTheLabName(t *testing.T) {
	tests := []struct {
		lab, want string
	}{
		{"gpu-lab", "## ✅ gpu-lab conformance: 1 passed"},
		{"*bold* _it_ ~del~", `## ✅ \*bold\* \_it\_ \~del\~ conformance:`},
		{"[x](https://example.invalid) ![i](y)", `## ✅ \[x\](https://example.invalid) \!\[i\](y) conformance:`},
		{"<img src=x onerror=alert(1)>", `## ✅ \<img src=x onerror=alert(1)\> conformance:`},
		{"`code` $x^2$ &lt; a|b", "## ✅ \\`code\\` \\$x^2\\$ \\&lt; a\\|b conformance:"},
		{`back\slash`, `## ✅ back\\slash conformance:`},
		{"lab ##", `## ✅ lab \#\# conformance:`},
		{"two\n## lines\n- item", `## ✅ two \#\# lines - item conformance:`},
	}
	for _, tt := range tests {
		t.Run(tt.lab, func(t *testing.T) {
			md := summaryMarkdown(&results.Run{Lab: tt.lab, Cases: []results.Case{{ID: "TC-01", Status: results.Passed}}})
			heading, _, _ := strings.Cut(md, "\n")
			if !strings.HasPrefix(heading, tt.want) {
				t.Errorf("heading %q, want it to start %q", heading, tt.want)
			}
		})
	}
}
