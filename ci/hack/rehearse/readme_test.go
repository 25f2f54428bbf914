package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/internal/doccmd"
)

// rehearsePrefixes are the ways the rehearsal's README runs this command.
var rehearsePrefixes = []string{"bin/rehearse ", "go run ./ci/hack/rehearse "}

// TestReadmeCommandsParse: every rehearse command line in the rehearsal's
// README names a subcommand that exists, with flags it knows and arguments
// it accepts.
func TestReadmeCommandsParse(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "rehearsal", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := doccmd.Lines(string(b), rehearsePrefixes)
	// daemon up/down, adaptations, run, charts, images at least.
	if len(lines) < 6 {
		t.Fatalf("only %d rehearse command lines found in ci/hack/rehearsal/README.md: %q", len(lines), lines)
	}
	for _, l := range lines {
		if err := doccmd.Check(newRehearseCommand(streams{out: io.Discard, errOut: io.Discard}), l, rehearsePrefixes); err != nil {
			t.Errorf("%q: %v", l, err)
		}
	}
	if err := doccmd.Check(newRehearseCommand(streams{out: io.Discard, errOut: io.Discard}),
		"bin/rehearse run --no-such-flag", rehearsePrefixes); err == nil {
		t.Error("the checker accepts an unknown flag")
	}
}
