package labcmd

import (
	"slices"
	"testing"
)

func TestThrough(t *testing.T) {
	tests := []struct {
		last    string
		want    []string
		wantErr bool
	}{
		{last: "cluster", want: []string{"cluster"}},
		{last: "tenants", want: []string{"cluster", "kamaji", "tenants"}},
		{last: "gpus", want: Stages},
		{last: "GPUs", wantErr: true},
		{last: "", wantErr: true},
		{last: "suite", wantErr: true},
	}
	for _, tt := range tests {
		got, err := Through(tt.last)
		if (err != nil) != tt.wantErr {
			t.Errorf("Through(%q) error = %v, wantErr %v", tt.last, err, tt.wantErr)
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Through(%q) = %q, want %q", tt.last, got, tt.want)
		}
	}
	// The result is a copy: callers may append without touching Stages.
	got, _ := Through("gpus")
	got[0] = "changed"
	if Stages[0] != "cluster" {
		t.Fatal("Through returned the Stages slice itself")
	}
}

func TestLater(t *testing.T) {
	tests := []struct{ a, b, want string }{
		{"", "cluster", "cluster"},
		{"cluster", "tenants", "tenants"},
		{"tenants", "kamaji", "tenants"},
		{"gpus", "gpus", "gpus"},
		{"hami", "", "hami"},
	}
	for _, tt := range tests {
		if got := Later(tt.a, tt.b); got != tt.want {
			t.Errorf("Later(%q, %q) = %q, want %q", tt.a, tt.b, got, tt.want)
		}
	}
}
