package run

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
)

// Sysctl is a kernel limit the lab needs at least Min of: the rehearsal
// raises it for its run and restores it afterwards.
type Sysctl struct {
	Path string
	Min  int64
}

// InotifyLimits are the limits kind's known issues ask for ("Pod errors
// due to too many open files": `sysctl fs.inotify.max_user_watches=524288`
// and `fs.inotify.max_user_instances=512`; kubernetes-sigs/kind
// site/content/docs/user/known-issues.md:214-225 at v0.33.0-alpha), which
// labctl's preflight requires (ci/stages MinInotifyWatches and
// MinInotifyInstances, in main). This machine has 192530 and 128.
var InotifyLimits = []Sysctl{
	{Path: "/proc/sys/fs/inotify/max_user_watches", Min: 524288},
	{Path: "/proc/sys/fs/inotify/max_user_instances", Min: 512},
}

// raised is a limit the rehearsal raised: restored to Old afterwards.
type raised = hostdaemon.Raised

// raisePlan is which limits to raise, given their current values: those
// below their minimum, to exactly it.
func raisePlan(current map[string]int64, want []Sysctl) []raised {
	var out []raised
	for _, s := range want {
		if cur, ok := current[s.Path]; ok && cur < s.Min {
			out = append(out, raised{Path: s.Path, Old: cur, New: s.Min})
		}
	}
	return out
}

// RaiseLimits raises the limits below their minimum and returns what it
// changed (also on error, so that it is restored). Each is recorded with
// its old value before it is written.
func RaiseLimits(want []Sysctl, ch *hostdaemon.Changes) ([]raised, error) {
	cur := map[string]int64{}
	for _, s := range want {
		n, err := readInt(s.Path)
		if err != nil {
			return nil, fmt.Errorf("read the kernel limit %s: %w", s.Path, err)
		}
		cur[s.Path] = n
	}
	var done []raised
	for _, r := range raisePlan(cur, want) {
		if err := ch.AddSysctl(r); err != nil {
			return done, err
		}
		if err := os.WriteFile(r.Path, []byte(strconv.FormatInt(r.New, 10)), 0o644); err != nil {
			return done, errors.Join(fmt.Errorf("raise the kernel limit %s from %d to %d: %w", r.Path, r.Old, r.New, err), ch.Forget(r.Path))
		}
		done = append(done, r)
	}
	return done, nil
}
