package assert

import (
	"strings"
	"testing"
)

// Messages verbatim from HAMI-FACTS.md §2/§3 (real kube-scheduler v1.36.3 + HAMi v2.10).
const (
	obsMem = "0/2 nodes are available: 1 1/1 CardInsufficientMemory, 1 node(s) didn't match Pod's node affinity/selector. no new claims to " +
		"deallocate, preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful " +
		"for scheduling."
	obsCore = "0/2 nodes are available: 1 1/1 CardInsufficientCore, 1 node(s) didn't match Pod's node affinity/selector. no new claims to " +
		"deallocate, preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful " +
		"for scheduling."
	obsType = "0/2 nodes are available: 1 2/2 CardTypeMismatch, 1 node(s) didn't match Pod's node affinity/selector. no new claims to " +
		"deallocate, preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful " +
		"for scheduling."
	obsDev = "0/2 nodes are available: 1 NodeInsufficientDevice, 1 node(s) didn't match Pod's node affinity/selector. no new claims to " +
		"deallocate, preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful " +
		"for scheduling."
)

func TestUnschedulable(t *testing.T) {
	tests := []struct {
		name    string
		msg     string
		want    []string
		reason  string
		wantErr string
	}{
		{"memory", obsMem, []string{"CardInsufficientMemory"}, "1/1 CardInsufficientMemory", ""},
		{"core", obsCore, []string{"CardInsufficientCore"}, "1/1 CardInsufficientCore", ""},
		{"type on two cards", obsType, []string{"CardTypeMismatch"}, "2/2 CardTypeMismatch", ""},
		{"node level", obsDev, []string{"NodeInsufficientDevice"}, "NodeInsufficientDevice", ""},
		{"any of", obsMem, []string{"CardInsufficientCore", "CardInsufficientMemory"}, "1/1 CardInsufficientMemory", ""},
		{"wrong reason", obsCore, []string{"CardInsufficientMemory"}, "",
			"pod is Pending for 1/1 CardInsufficientCore, want CardInsufficientMemory"},
		{"no HAMi reason", "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.", []string{"CardInsufficientMemory"},
			"", "pod is Pending for no HAMi reason"},
		{"bind error is not a verdict", "node worker-a has been locked within 5m0s: node lock contention", []string{"CardInsufficientCore"}, "",
			"not a kube-scheduler verdict"},
		{"some nodes available", "1/2 nodes are available: 1 1/1 CardInsufficientCore.", []string{"CardInsufficientCore"}, "",
			"1/2 nodes are available, want 0"},
		{"reason only in preemption part", "0/1 nodes are available: 1 Insufficient cpu. preemption: CardInsufficientCore",
			[]string{"CardInsufficientCore"}, "", "no HAMi reason"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Unschedulable(tt.msg, tt.want...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.String() != tt.reason {
				t.Errorf("reason = %q, want %q", r, tt.reason)
			}
		})
	}
}

func TestParseVerdictCounts(t *testing.T) {
	v, err := ParseVerdict(obsMem)
	if err != nil {
		t.Fatal(err)
	}
	if v.Available != 0 || v.Total != 2 || len(v.Reasons) != 1 {
		t.Fatalf("got %+v", v)
	}
}

// More texts verbatim from HAMI-FACTS.md §5.2 (kube-scheduler's verdict
// before HAMi registered the node) and §2 (Bind's two lock errors, as
// FailedScheduling events and SchedulerError conditions).
const (
	obsUnregistered = "0/1 nodes are available: 1 node unregistered. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No " +
		"preemption victims found for incoming pod."
	obsLockedWithin = "node worker-a has been locked within 5m0s: node lock contention"
	obsLocked       = "node worker-a is locked: node lock contention"
)

func TestCause(t *testing.T) {
	tests := []struct {
		name, msg, want string
	}{
		{"node unregistered", obsUnregistered, "HAMi had not registered the node's cards"},
		{"lock held by a live pod", obsLockedWithin, "HAMi's node lock was held by another pod's bind"},
		{"lock taken by a concurrent bind", obsLocked, "HAMi's node lock was held by another pod's bind"},
		{"filter reason", obsMem, "HAMi's filter found no card that fits: 1/1 CardInsufficientMemory"},
		{"node-level filter reason", obsDev, "HAMi's filter found no card that fits: NodeInsufficientDevice"},
		{"nothing HAMi said", "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.", ""},
		{"not a verdict", "Operation cannot be fulfilled on pods \"p\": the object has been modified", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Cause(tc.msg)
			if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
				t.Errorf("Cause = %q, want %q", got, tc.want)
			}
		})
	}
}
