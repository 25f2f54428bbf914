package labcmd

import (
	"strings"
	"testing"
)

func TestParseExitCode(t *testing.T) {
	tests := []struct {
		in      string
		want    int
		wantErr bool
	}{
		{"0\n", 0, false},
		{"1", 1, false},
		{" 137 \n", 137, false},
		{"", 0, true},
		{"-1", 0, true},
		{"ok", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseExitCode(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseExitCode(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestVerdict(t *testing.T) {
	if err := Verdict(0, "| TC-01 | pass |"); err != nil {
		t.Fatalf("exit code 0: %v", err)
	}
	err := Verdict(1, "| TC-05 | fail | CardInsufficientMemory |\n")
	if err == nil {
		t.Fatal("exit code 1 gave no error")
	}
	for _, want := range []string{"exit code 1", "TC-05", "CardInsufficientMemory"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if err := Verdict(2, ""); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("no summary: got %v, want a one-line error", err)
	}
}

func TestStageFailure(t *testing.T) {
	s := StageFailure("kamaji", 1, "waiting for kamaji: context deadline exceeded\n")
	for _, want := range []string{"`kamaji` failed", "exit code 1", "logs/kamaji.log", "context deadline exceeded", "did not run"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}

func TestTail(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc"},
		{"a\nb", 5, "a\nb"},
		{"", 3, ""},
	}
	for _, tt := range tests {
		if got := Tail(tt.in, tt.n); got != tt.want {
			t.Errorf("Tail(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
