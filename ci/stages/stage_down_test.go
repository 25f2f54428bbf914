package stages

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/state"
)

// TestDownRefusesWhatLabctlDidNotMake: issue 30's case — `down` given a
// directory that holds kubeconfigs/prod.yaml, values/mine.yaml,
// stages.json and notes.txt but no labctl marker — is refused before
// Docker or kind is asked anything, and every file stays. A state dir of
// the local test environment is refused by this (real lab) Down too.
func TestDownRefusesWhatLabctlDidNotMake(t *testing.T) {
	files := []string{"kubeconfigs/prod.yaml", "values/mine.yaml", "stages.json", "notes.txt"}
	for _, tc := range []struct {
		name string
		kind state.Kind
		want string
	}{
		{"no marker", "", "is not a labctl state dir: it has no labctl-state.json, so labctl did not make it"},
		{"testenv state dir", state.Testenv, "was made by `labctl testenv up`, which has no containers or cluster to remove"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, d, k, _ := testEnv(t)
			e.State = state.Dir(t.TempDir())
			if tc.kind != "" {
				if err := e.State.Claim(tc.kind); err != nil {
					t.Fatal(err)
				}
			}
			k.exists = true
			w := runningOn("gpu-lab-tenant-a-worker", "kind", "172.18.0.3")
			w.Config.Labels = map[string]string{"gpu-lab.dev/lab": "gpu-lab"}
			d.containers[w.Name[1:]] = w
			for _, f := range files {
				p := filepath.Join(string(e.State), filepath.FromSlash(f))
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(f), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			removed, err := Down(context.Background(), e)
			if err == nil || !strings.Contains(err.Error(), tc.want) || len(removed) > 0 {
				t.Fatalf("removed %v, err %v; want nothing removed and %q", removed, err, tc.want)
			}
			if tc.kind == "" && !errors.Is(err, state.ErrNotLabctl) {
				t.Errorf("err %v does not wrap ErrNotLabctl", err)
			}
			if len(k.calls) > 0 || len(d.calls) > 0 {
				t.Errorf("refused down still called kind %v, docker %v", k.calls, d.calls)
			}
			for _, f := range files {
				if b, err := os.ReadFile(filepath.Join(string(e.State), filepath.FromSlash(f))); err != nil || string(b) != f {
					t.Errorf("%s lost: %q, %v", f, b, err)
				}
			}
		})
	}
}
