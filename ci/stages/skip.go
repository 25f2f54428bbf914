package stages

import (
	"slices"

	"github.com/gpu-lab/gpu-lab/ci/state"
)

// Decision is what the runner does with a stage.
type Decision int

const (
	// RunIt runs the stage.
	RunIt Decision = iota
	// SkipDone skips a stage whose work is already there.
	SkipDone
	// SkipUnselected skips a stage --only did not name.
	SkipUnselected
)

func (d Decision) String() string {
	return [...]string{"run", "skip (already there)", "skip (not selected)"}[d]
}

// Selected reports whether --only selects the stage ("" selects all).
func Selected(name, only string) bool { return only == "" || only == name }

// Decide is the skip logic: unselected stages are left alone (not even
// checked), selected ones run unless their work is already there.
func Decide(name, only string, done bool) Decision {
	switch {
	case !Selected(name, only):
		return SkipUnselected
	case done:
		return SkipDone
	default:
		return RunIt
	}
}

// MissingPrerequisite returns the first stage before only that the state
// directory does not record as done or skipped, or "" when all are. Running
// `--only hami` on a lab without workers would otherwise fail deep inside
// helm with a less useful message.
func MissingPrerequisite(only string, recs []state.StageRecord) string {
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

// MergeRecord replaces the record of rec.Name (or appends it) and keeps the
// records in stage order.
func MergeRecord(recs []state.StageRecord, rec state.StageRecord) []state.StageRecord {
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
