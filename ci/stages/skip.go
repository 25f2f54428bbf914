package stages

import (
	"slices"

	"github.com/gpu-lab/gpu-lab/ci/state"
)

// decision is what the runner does with a stage.
type decision int

const (
	// runIt runs the stage.
	runIt decision = iota
	// skipDone skips a stage whose work is already there.
	skipDone
	// skipUnselected skips a stage --only did not name.
	skipUnselected
)

func (d decision) String() string {
	return [...]string{"run", "skip (already there)", "skip (not selected)"}[d]
}

// selected reports whether --only selects the stage ("" selects all).
func selected(name, only string) bool { return only == "" || only == name }

// decide is the skip logic: unselected stages are left alone (not even
// checked), selected ones run unless their work is already there.
func decide(name, only string, done bool) decision {
	switch {
	case !selected(name, only):
		return skipUnselected
	case done:
		return skipDone
	default:
		return runIt
	}
}

// missingPrerequisite returns the first stage before only that the state
// directory does not record as done or skipped, or "" when all are. Running
// `--only hami` on a lab without workers would otherwise fail deep inside
// helm with a less useful message.
func missingPrerequisite(only string, recs []state.StageRecord) string {
	i := slices.Index(Names, only)
	if i <= 0 {
		return ""
	}
	ok := map[string]bool{}
	for _, r := range recs {
		ok[r.Name] = r.Status == StatusDone || r.Status == StatusSkipped
	}
	for _, n := range Names[:i] {
		if !ok[n] {
			return n
		}
	}
	return ""
}

// Record statuses in stages.json.
const (
	StatusDone    = "done"
	StatusSkipped = "skipped"
	StatusFailed  = "failed"
)

// mergeRecord replaces the record of rec.Name (or appends it) and keeps the
// records in stage order.
func mergeRecord(recs []state.StageRecord, rec state.StageRecord) []state.StageRecord {
	out := slices.DeleteFunc(slices.Clone(recs), func(r state.StageRecord) bool { return r.Name == rec.Name })
	out = append(out, rec)
	slices.SortStableFunc(out, func(a, b state.StageRecord) int {
		return order(a.Name) - order(b.Name)
	})
	return out
}

func order(name string) int {
	if i := slices.Index(Names, name); i >= 0 {
		return i
	}
	return len(Names)
}
