package bincache

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A build ended by its caller's deadline says so: the cause (which names the
// bound when the caller gave one), how long it ran, how far it got in the
// recorded `go build -v` log, and where that log is.
func TestGaveUpNamesTheBoundProgressAndLog(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "go-build-v.log"))
	if err != nil {
		t.Fatal(err)
	}
	bound := errors.New("ci/test/e2e's bound for building the environment's binaries (1h0m0s)")
	for _, tc := range []struct {
		name  string
		log   string
		cause error
		want  string
	}{
		{"deadline with a named bound, partway", string(b), bound,
			"gave up after 20m0s, 3 packages compiled; the log is at /cache/k.build.log: " + bound.Error()},
		{"cancelled before compiling", "", context.Canceled,
			"gave up after 20m0s, no package compiled yet; the log is at /cache/k.build.log: context canceled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := gaveUp(tc.cause, 20*time.Minute+300*time.Millisecond, readBuildStatus(tc.log), "/cache/k.build.log")
			if !strings.HasPrefix(err.Error(), "building the Kubernetes "+KubernetesVersion+" test binaries: ") ||
				!strings.HasSuffix(err.Error(), tc.want) {
				t.Errorf("gaveUp = %q, want it to end %q", err, tc.want)
			}
			if !errors.Is(err, tc.cause) {
				t.Errorf("gaveUp = %v does not wrap its cause %v", err, tc.cause)
			}
		})
	}
}
