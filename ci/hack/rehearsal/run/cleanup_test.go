package run

import (
	"slices"
	"strings"
	"testing"
)

// What is undone depends on what was made, in an order where labctl down
// runs while the daemon still does, and nothing is undone when kept.
func TestCleanupPlan(t *testing.T) {
	all := made{LibModules: true, Daemon: true, Lab: true, State: true,
		Limits: []raised{{Path: "/proc/sys/fs/inotify/max_user_instances", Old: 128, New: 512}}}
	for _, tc := range []struct {
		name string
		m    made
		keep bool
		want []action
	}{
		{"everything", all, false, []action{actLabDown, actStopDaemon, actRemoveState, actRemoveLibModules, actRestoreLimits}},
		{"kept", all, true, nil},
		{"daemon failed to start", made{LibModules: true, State: true}, false, []action{actRemoveState, actRemoveLibModules}},
		{"/lib/modules existed", made{Daemon: true, Lab: true, State: true}, false, []action{actLabDown, actStopDaemon, actRemoveState}},
		{"up never started", made{Daemon: true, State: true}, false, []action{actStopDaemon, actRemoveState}},
		{"nothing made", made{}, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cleanupPlan(tc.m, tc.keep); !slices.Equal(got, tc.want) {
				t.Errorf("CleanupPlan(%+v, %v) = %q, want %q", tc.m, tc.keep, got, tc.want)
			}
		})
	}
}

// A kept rehearsal says how to remove each thing it left, in order.
func TestKeptCommands(t *testing.T) {
	got := keptCommands(made{LibModules: true, Daemon: true, Lab: true, State: true,
		Limits: []raised{{Path: "/proc/sys/fs/inotify/max_user_instances", Old: 128, New: 512}}}, testPaths, libModules)
	want := []string{
		"the lab: DOCKER_HOST=unix:///cache/daemon/docker.sock LABCTL_HELM=/cache/bin/helm nsenter " +
			"--net=/var/run/netns/gpu-lab-rehearsal -- /tmp/labctl down --state-dir /cache/run/state",
		"labctl's state directory: rm -r /cache/run/state",
		"the private daemon and namespace gpu-lab-rehearsal, /proc/sys/fs/inotify/max_user_instances raised from 128, " +
			"the empty /lib/modules made for kind's mount (recorded in /cache/daemon/host-changes.json): " +
			"rehearse daemon down --dir /cache/daemon",
	}
	if !slices.Equal(got, want) {
		t.Errorf("KeptCommands:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

// Only the limits below their minimum are raised, to exactly it.
func TestRaisePlan(t *testing.T) {
	w, i := InotifyLimits[0].Path, InotifyLimits[1].Path
	for _, tc := range []struct {
		name string
		cur  map[string]int64
		want []raised
	}{
		{"this machine", map[string]int64{w: 192530, i: 128}, []raised{{Path: w, Old: 192530, New: 524288}, {Path: i, Old: 128, New: 512}}},
		{"enough", map[string]int64{w: 524288, i: 8192}, nil},
		{"one low", map[string]int64{w: 1 << 20, i: 128}, []raised{{Path: i, Old: 128, New: 512}}},
	} {
		if got := raisePlan(tc.cur, InotifyLimits); !slices.Equal(got, tc.want) {
			t.Errorf("%s: RaisePlan = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
