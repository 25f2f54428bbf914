package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// The times of every case line start in one column, whatever the titles:
// a long title, a non-ASCII one, a short one, a reason after the time.
func TestResultTableAlignsLongTitles(t *testing.T) {
	long := "Three slices of one card (20000 MB + 30% on 80 GB) are bound and Running"
	tests := []struct {
		name  string
		cases []results.Case
	}{
		{"short titles", []results.Case{{ID: "TC-01", Title: "a"}, {ID: "TC-02", Title: "bb"}}},
		{"a title over 70 characters", []results.Case{{ID: "TC-01", Title: "Tenant control planes answer"}, {ID: "TC-03", Title: long}}},
		{"a title of 200 characters", []results.Case{{ID: "TC-01", Title: "short"}, {ID: "TC-02", Title: strings.Repeat("long ", 40)}}},
		{"non-ASCII titles", []results.Case{{ID: "TC-17", Title: "splitCount ≥ 2 on 2× L4"},
			{ID: "TC-01", Title: "splitCount >= 2 on 2x L4 cards"}}},
		{"a reason after the time", []results.Case{
			{ID: "TC-17", Title: "Node policy", Status: results.Skipped, Message: "skipped: the lab spec has no tenant with two GPU workers"},
			{ID: "TC-03", Title: long}}},
		{"IDs of different lengths", []results.Case{{ID: "TC-1", Title: "a"}, {ID: "TC-100", Title: "a"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.cases {
				if tt.cases[i].Status == "" {
					tt.cases[i].Status = results.Passed
				}
				tt.cases[i].Duration = results.Duration(time.Duration(i*12345+100) * time.Millisecond)
			}
			var out bytes.Buffer
			printResultTable(&out, &results.Run{Cases: tt.cases}, nil)
			lines := strings.Split(out.String(), "\n")[:len(tt.cases)]
			col := -1
			for i, l := range lines {
				c := tt.cases[i]
				if !strings.Contains(l, c.Title) || !strings.Contains(l, c.ID) {
					t.Fatalf("line %q lacks %s %q", l, c.ID, c.Title)
				}
				// The time ends in "s" right after the padded title.
				rest := l[strings.Index(l, c.Title)+len(c.Title):]
				secs := strings.Index(rest, "s")
				at := utf8.RuneCountInString(l[:strings.Index(l, c.Title)+len(c.Title)]) + utf8.RuneCountInString(rest[:secs])
				if col < 0 {
					col = at
				} else if at != col {
					t.Errorf("times end at columns %d and %d:\n%s", col, at, out.String())
				}
			}
		})
	}
}
