package main

import (
	"bytes"
	"context"
	"io"
	"testing"
)

// runRoot runs a fresh labctl command tree with args, as main does, and
// returns what it wrote to stdout and stderr together. Every run builds
// its own tree, so no flag value of one run is seen by the next.
func runRoot(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := runRootIO(t, nil, &out, &out, args...)
	return out.String(), err
}

// runRootIO runs a fresh labctl command tree with args on the given
// streams; the error is the one main would print.
func runRootIO(t *testing.T, in io.Reader, out, errOut io.Writer, args ...string) error {
	t.Helper()
	root := newRootCommand(streams{in: in, out: out, errOut: errOut})
	root.SetArgs(args)
	return withCommandHint(root, root.ExecuteContext(context.Background()))
}
