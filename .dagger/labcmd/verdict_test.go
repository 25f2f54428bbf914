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
		// labctl up --verbose: debug records are left out, info records
		// and the stage's own lines stay.
		{"· hami     started\n" +
			"time=2026-12-07T02:03:01.002Z level=DEBUG msg=helm kubeconfig=/lab/state/kubeconfigs/tenant-a.yaml " +
			"args=\"[upgrade --install hami]\"\n" +
			"time=2026-12-07T02:03:09.116Z level=INFO msg=\"preloaded images\" node=gpu-lab-tenant-a-worker\n" +
			"✗ hami        9.1s  tenant-a: helm upgrade hami: exit status 1\n" +
			"time=2026-12-07T02:03:09.200Z level=DEBUG msg=\"diagnostics written\"\n", 2,
			"time=2026-12-07T02:03:09.116Z level=INFO msg=\"preloaded images\" node=gpu-lab-tenant-a-worker\n" +
				"✗ hami        9.1s  tenant-a: helm upgrade hami: exit status 1"},
		{"level=DEBUG is only a word here\ntime=x level=DEBUGGER y\n", 5, "level=DEBUG is only a word here\ntime=x level=DEBUGGER y"},
	}
	for _, tt := range tests {
		if got := Tail(tt.in, tt.n); got != tt.want {
			t.Errorf("Tail(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
