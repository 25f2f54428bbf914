package labcmd

import (
	"strings"
	"testing"
)

// The codes Dagger v0.21.8 refuses under Expect: ANY (core/container.go,
// ReturnTypes.ReturnCodes): 128–191.
func TestSignalCode(t *testing.T) {
	tests := []struct {
		code int
		want bool
	}{
		{0, false}, {1, false}, {127, false}, {128, true}, {130, true},
		{137, true}, {143, true}, {191, true}, {192, false}, {255, false},
	}
	for _, tt := range tests {
		if got := SignalCode(tt.code); got != tt.want {
			t.Errorf("SignalCode(%d) = %v, want %v", tt.code, got, tt.want)
		}
	}
}

func TestBrokenExec(t *testing.T) {
	tests := []struct {
		name      string
		code      int
		hasCode   bool
		engineErr string
		wantCode  int
		want      []string // substrings of Broken
	}{
		{name: "OOM kill", code: 137, hasCode: true, engineErr: "process did not complete successfully: exit code: 137",
			wantCode: 137, want: []string{"signal 9", "SIGKILL", "out-of-memory"}},
		{name: "SIGTERM", code: 143, hasCode: true, wantCode: 143, want: []string{"signal 15", "SIGTERM"}},
		{name: "other signal", code: 129 + 9, hasCode: true, wantCode: 138, want: []string{"signal 10", "a signal"}},
		{name: "service exited", engineErr: "bound service abc (docker) exited: exit code 1",
			wantCode: EngineErrorCode, want: []string{"engine error", "Docker-in-Docker", "bound service abc (docker) exited"}},
		{name: "exec error without a signal code", code: 0, hasCode: true, engineErr: "context canceled",
			wantCode: EngineErrorCode, want: []string{"context canceled"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := BrokenExec("kamaji", tt.code, tt.hasCode, "partial output", tt.engineErr)
			if s.Name != "kamaji" || s.Code != tt.wantCode || s.Output != "partial output" {
				t.Errorf("got %+v, want name kamaji, code %d and the output kept", s, tt.wantCode)
			}
			for _, w := range tt.want {
				if !strings.Contains(s.Broken, w) {
					t.Errorf("Broken %q lacks %q", s.Broken, w)
				}
			}
		})
	}
}

func TestStepLog(t *testing.T) {
	if got := (Step{Name: "cluster", Output: "ok\n"}).Log(); got != "ok\n" {
		t.Errorf("ordinary step log = %q, want the output unchanged", got)
	}
	log := BrokenExec("test", 137, true, "TC-01 pass", "").Log()
	for _, want := range []string{"TC-01 pass\n", "step test did not finish", "SIGKILL", "exit code 137"} {
		if !strings.Contains(log, want) {
			t.Errorf("broken step log lacks %q:\n%s", want, log)
		}
	}
}
