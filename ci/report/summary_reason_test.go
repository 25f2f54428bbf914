package report

import (
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// TC-17's skip reason as labctl test printed it on the seed lab
// (2026-12-02, local environment): long enough that a cut summary shows
// only "… 2× L4 (2…".
const tc17Reason = "skipped: the lab spec has no tenant with two GPU workers and hami.splitCount ≥ 2 (it has " +
	"tenant-a/worker: 1× A100-80GB (81920 MB); tenant-b/worker: 2× L4 (24576 MB))"

// A case's reason is given whole in the case table, or — only when the
// table would outgrow its budget — replaced by where it is; never cut.
func TestSummaryNeverCutsAReason(t *testing.T) {
	long := strings.Repeat("the lab lacks a card of this model ", 40) + "END"
	tests := []struct {
		name  string
		cases []results.Case
		want  []string
	}{
		{"TC-17's skip reason", []results.Case{{ID: "TC-17", Status: results.Skipped, Message: tc17Reason}},
			[]string{"| " + tc17Reason + " |"}},
		{"a reason of 1400 characters", []results.Case{{ID: "TC-03", Status: results.Skipped, Message: long}},
			[]string{"| " + long + " |"}},
		{"a failure's reason, in the table and under Failures", []results.Case{{ID: "TC-14", Status: results.Failed, Message: long}},
			[]string{"| " + long + " |", "```text\n" + long + "\n```"}},
		{"a table over its budget points to the reason", manyCases(200, long),
			[]string{"| _skipped reason of 1403 characters: in report.html and results.json_ |"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md := summaryMarkdown(&results.Run{Cases: tt.cases})
			for _, w := range tt.want {
				if !strings.Contains(md, w) {
					t.Errorf("summary lacks %q:\n%.2000s", w, md)
				}
			}
			if strings.Contains(md, "…") {
				t.Errorf("summary cuts a reason:\n%.2000s", md)
			}
		})
	}
}

func manyCases(n int, msg string) []results.Case {
	var cs []results.Case
	for i := range n {
		cs = append(cs, results.Case{ID: "TC-" + itoa(100+i), Status: results.Skipped, Message: msg})
	}
	return cs
}
