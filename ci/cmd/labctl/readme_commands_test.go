package main

import (
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/internal/doccmd"
)

// The documents whose labctl command lines must parse: the README and the
// documents beside the code it links to (the rehearsal's README shows
// bin/rehearse; ci/hack/rehearse checks those).
var commandDocs = []string{
	"README.md",
	"ci/test/e2e/README.md",
	"ci/testenv/README.md",
	"ci/stages/README.md",
	"ci/render/README.md",
	"ci/lab/README.md",
	"ci/test/e2e/VERIFIED.md",
	"ci/stages/TROUBLESHOOTING.md",
	"ci/suite/README.md",
	"ci/README.md",
}

// labctlPrefixes are the two ways the README runs labctl; a bare `labctl`
// is prose (it is not on PATH), not a command to copy.
var labctlPrefixes = []string{"go run ./ci/cmd/labctl ", "bin/labctl "}

// TestReadmeCommandsParse: every labctl command line in the README and the
// documents beside the code (code blocks and inline code) names a
// subcommand that exists, flags that command knows with values of the right
// type, and arguments it accepts. Nothing is run, so commands that need
// Docker or a network are checked too.
func TestReadmeCommandsParse(t *testing.T) {
	total := 0
	for _, doc := range commandDocs {
		for _, line := range doccmd.Lines(readRepoFile(t, doc), labctlPrefixes) {
			total++
			t.Logf("%s: %s", doc, line)
			if err := checkLabctlLine(line); err != nil {
				t.Errorf("%s: %q: %v", doc, line, err)
			}
		}
	}
	// The README shows at least the local path, labctl up and the existing
	// platform; fewer means the extraction broke, not that all is well.
	if total < 15 {
		t.Fatalf("only %d labctl command lines found in %v", total, commandDocs)
	}
}

// TestReadmeCommandChecker: the checker refuses what a stale README would
// show, so TestReadmeCommandsParse can fail.
func TestReadmeCommandChecker(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"bin/labctl testenv up --state-dir /tmp/lab &", true},
		{`bin/labctl test -f x.yaml --kubeconfig a=b --backend "a b, c" --parallel 4`, true},
		{"go run ./ci/cmd/labctl test --state-dir /tmp/lab --report-dir reports    # comment", true},
		{"bin/labctl validate my-platform.yaml", true},
		{"bin/labctl bogus", false},
		{"bin/labctl testenv bogus", false},
		{"bin/labctl testenv up --no-such-flag", false},
		{"bin/labctl test --parallel four", false},
		{"bin/labctl up --pull-timeout soon", false},
		{"bin/labctl testenv up surplus", false},
		{`bin/labctl test --backend "unterminated`, false},
	} {
		err := checkLabctlLine(tc.line)
		if (err == nil) != tc.ok {
			t.Errorf("%q: err = %v, want ok=%v", tc.line, err, tc.ok)
		}
	}
}

func checkLabctlLine(line string) error {
	return doccmd.Check(newRootCommand(streams{}), line, labctlPrefixes)
}
