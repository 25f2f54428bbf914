package stages

import (
	"reflect"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/state"
)

func TestDecide(t *testing.T) {
	tests := []struct {
		name, only string
		done       bool
		want       decision
	}{
		{"cluster", "", false, runIt},
		{"cluster", "", true, skipDone},
		{"hami", "hami", false, runIt},
		{"hami", "hami", true, skipDone},
		{"cluster", "hami", false, skipUnselected},
		{"cluster", "hami", true, skipUnselected},
	}
	for _, tt := range tests {
		if got := decide(tt.name, tt.only, tt.done); got != tt.want {
			t.Errorf("decide(%s, only=%q, done=%v) = %s, want %s", tt.name, tt.only, tt.done, got, tt.want)
		}
	}
}

func recs(pairs ...string) []state.StageRecord {
	var out []state.StageRecord
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, state.StageRecord{Name: pairs[i], Status: pairs[i+1]})
	}
	return out
}

func TestMissingPrerequisite(t *testing.T) {
	tests := []struct {
		only string
		recs []state.StageRecord
		want string
	}{
		{"", nil, ""},
		{"cluster", nil, ""},
		{"kamaji", nil, "cluster"},
		{"kamaji", recs("cluster", "done"), ""},
		{"kamaji", recs("cluster", "skipped"), ""},
		{"kamaji", recs("cluster", "failed"), "cluster"},
		{"gpus", recs("cluster", "done", "kamaji", "done", "tenants", "done", "workers", "done", "hami", "done"), ""},
		{"gpus", recs("cluster", "done", "kamaji", "done", "workers", "done", "hami", "done"), "tenants"},
	}
	for _, tt := range tests {
		if got := missingPrerequisite(tt.only, tt.recs); got != tt.want {
			t.Errorf("missingPrerequisite(%s, %v) = %q, want %q", tt.only, tt.recs, got, tt.want)
		}
	}
	if err := ValidateOnly("workers"); err != nil {
		t.Error(err)
	}
	if err := ValidateOnly("worker"); err == nil {
		t.Error("--only worker: want error listing the stages")
	}
}

func TestMergeRecord(t *testing.T) {
	at := time.Unix(0, 0)
	got := mergeRecord(recs("hami", "failed", "cluster", "done"), state.StageRecord{Name: "kamaji", Status: "done", Started: at})
	got = mergeRecord(got, state.StageRecord{Name: "hami", Status: "done"})
	var names, statuses []string
	for _, r := range got {
		names, statuses = append(names, r.Name), append(statuses, r.Status)
	}
	if !reflect.DeepEqual(names, []string{"cluster", "kamaji", "hami"}) || !reflect.DeepEqual(statuses, []string{"done", "done", "done"}) {
		t.Fatalf("mergeRecord = %v %v", names, statuses)
	}
}
