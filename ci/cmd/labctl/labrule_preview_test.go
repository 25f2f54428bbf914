package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/state"
)

// plan and images follow the same rule: the state dir's recorded lab when
// it has one (-f must be that lab), else -f, else the seed lab.
func TestPreviewCommandsFollowTheLabRule(t *testing.T) {
	blue := recordedDir(t, state.RealLab, "blue")
	green := otherLab(t, "green")
	empty := filepath.Join(t.TempDir(), "none")
	for _, tc := range []struct {
		name string
		args []string
		want string // in the output, or in the error when refused
		err  bool
	}{
		{"plan shows the recorded lab", []string{"plan", "--state-dir", string(blue)}, "blue", false},
		{"plan -f another lab is refused", []string{"plan", "-f", green, "--state-dir", string(blue)},
			`(lab "green") is not the lab state dir ` + string(blue), true},
		{"plan -f where nothing is recorded", []string{"plan", "-f", green, "--state-dir", empty}, "green", false},
		{"images -f another lab is refused", []string{"images", "-f", green, "--state-dir", string(blue)},
			`(lab "green") is not the lab state dir ` + string(blue), true},
		{"images save -f another lab is refused", []string{"images", "save", t.TempDir(), "-f", green, "--state-dir", string(blue)},
			`(lab "green") is not the lab state dir ` + string(blue), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runRoot(t, tc.args...)
			if tc.err {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("labctl %v: %v, want an error containing %q\n%s", tc.args, err, tc.want, out)
				}
				return
			}
			if err != nil || !strings.Contains(out, tc.want) {
				t.Fatalf("labctl %v: %v, want output naming lab %q:\n%s", tc.args, err, tc.want, out)
			}
		})
	}
}
