package labcmd

import (
	"slices"
	"testing"
)

func TestProgress(t *testing.T) {
	type stage struct {
		name string
		code int
	}
	tests := []struct {
		name      string
		keepGoing bool
		stages    []stage
		suiteCode int
		wantRan   []string // stages run before stopping
		wantSuite bool
		wantCode  int
	}{
		{name: "all pass", stages: []stage{{"cluster", 0}, {"kamaji", 0}}, suiteCode: 0,
			wantRan: []string{"cluster", "kamaji"}, wantSuite: true, wantCode: 0},
		{name: "cases fail", stages: []stage{{"cluster", 0}, {"kamaji", 0}}, suiteCode: 1,
			wantRan: []string{"cluster", "kamaji"}, wantSuite: true, wantCode: 1},
		{name: "stage fails and stops", stages: []stage{{"cluster", 0}, {"kamaji", 3}, {"tenants", 0}},
			wantRan: []string{"cluster", "kamaji"}, wantSuite: false, wantCode: 3},
		{name: "keep going reports the first failure", keepGoing: true,
			stages:    []stage{{"cluster", 0}, {"kamaji", 3}, {"tenants", 4}, {"workers", 0}},
			suiteCode: 1,
			wantRan:   []string{"cluster", "kamaji", "tenants", "workers"}, wantSuite: true, wantCode: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Progress{KeepGoing: tt.keepGoing}
			var ran []string
			for _, s := range tt.stages {
				ran = append(ran, s.name)
				if !p.Stage(s.name, s.code) {
					break
				}
			}
			if !slices.Equal(ran, tt.wantRan) {
				t.Errorf("ran %q, want %q", ran, tt.wantRan)
			}
			if p.RunSuite() != tt.wantSuite {
				t.Errorf("RunSuite = %v, want %v", p.RunSuite(), tt.wantSuite)
			}
			if got := p.ExitCode(tt.suiteCode); got != tt.wantCode {
				t.Errorf("ExitCode = %d, want %d", got, tt.wantCode)
			}
		})
	}
}
