package main

import (
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/state"
)

// newStateDir is a state dir labctl made for backend k (empty).
func newStateDir(t *testing.T, k state.Kind) state.Dir {
	t.Helper()
	d := state.Dir(t.TempDir())
	if err := d.Claim(k); err != nil {
		t.Fatal(err)
	}
	return d
}
