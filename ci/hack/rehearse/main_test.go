package main

import (
	"bytes"
	"strings"
	"testing"
)

// `rehearse daemon env` prints the socket of the state directory it is
// given; `rehearse adaptations` prints the list the report carries.
func TestRehearseCommands(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"daemon", "env", "--dir", "/state"}, []string{"export DOCKER_HOST=unix:///state/docker.sock\n"}},
		{[]string{"adaptations"}, []string{"1. private Docker daemon\n", "restrict_oom_score_adj"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out bytes.Buffer
			cmd := newRehearseCommand(streams{out: &out, errOut: &out})
			cmd.SetArgs(tc.args)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}
