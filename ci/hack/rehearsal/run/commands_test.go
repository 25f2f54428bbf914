package run

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
)

var testPaths = Paths{
	Labctl: "/tmp/labctl", Helm: "/cache/bin/helm", Bundle: "/cache/bundle",
	State: "/cache/run/state", Reports: "/work/reports", Netns: "gpu-lab-rehearsal",
	Daemon: hostdaemon.Layout{Dir: "/cache/daemon"},
}

// The labctl commands the rehearsal runs: the user's commands, run by
// nsenter in the daemon's namespace with only DOCKER_HOST and LABCTL_HELM
// set.
func TestCommandLines(t *testing.T) {
	ns := []string{"nsenter", "--net=/var/run/netns/gpu-lab-rehearsal", "--"}
	withFile := testPaths
	withFile.LabFile = "/labs/big.yaml"
	for _, tc := range []struct {
		name string
		c    command
		want []string
	}{
		{"up", up(testPaths, false), []string{"/tmp/labctl", "up", "--images", "/cache/bundle", "--state-dir", "/cache/run/state", "--verbose"}},
		{"up kept", up(testPaths, true),
			[]string{"/tmp/labctl", "up", "--images", "/cache/bundle", "--state-dir", "/cache/run/state", "--verbose", "--keep"}},
		{"up lab file", up(withFile, false), []string{"/tmp/labctl", "up", "--images", "/cache/bundle",
			"--state-dir", "/cache/run/state", "--verbose", "--file", "/labs/big.yaml"}},
		{"test", test(withFile),
			[]string{"/tmp/labctl", "test", "--state-dir", "/cache/run/state", "--report-dir", "/work/reports", "--verbose"}},
		{"down", down(testPaths), []string{"/tmp/labctl", "down", "--state-dir", "/cache/run/state"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if want := append(slices.Clone(ns), tc.want...); !slices.Equal(tc.c.Args, want) {
				t.Errorf("argv\n got %q\nwant %q", tc.c.Args, want)
			}
			wantEnv := []string{"DOCKER_HOST=unix:///cache/daemon/docker.sock", "LABCTL_HELM=/cache/bin/helm"}
			if !slices.Equal(tc.c.Env, wantEnv) {
				t.Errorf("env %q, want %q", tc.c.Env, wantEnv)
			}
			if s := tc.c.String(); !strings.HasPrefix(s, "DOCKER_HOST=unix:///cache/daemon/docker.sock LABCTL_HELM=/cache/bin/helm nsenter ") {
				t.Errorf("String() = %q", s)
			}
		})
	}
}

// The caller's DOCKER_HOST (the machine's Docker) must not survive.
func TestMergeEnv(t *testing.T) {
	for _, tc := range []struct {
		base, over, want []string
	}{
		{[]string{"PATH=/bin", "DOCKER_HOST=unix:///var/run/docker.sock", "HOME=/root"}, []string{"DOCKER_HOST=unix:///d.sock"},
			[]string{"PATH=/bin", "HOME=/root", "DOCKER_HOST=unix:///d.sock"}},
		{[]string{"A=1"}, nil, []string{"A=1"}},
		{nil, []string{"LABCTL_HELM=/h"}, []string{"LABCTL_HELM=/h"}},
		{[]string{"LABCTL_HELMX=1", "LABCTL_HELM=old"}, []string{"LABCTL_HELM=/h"}, []string{"LABCTL_HELMX=1", "LABCTL_HELM=/h"}},
	} {
		if got := mergeEnv(tc.base, tc.over); !slices.Equal(got, tc.want) {
			t.Errorf("mergeEnv(%q, %q) = %q, want %q", tc.base, tc.over, got, tc.want)
		}
	}
}
