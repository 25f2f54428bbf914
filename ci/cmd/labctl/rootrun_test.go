package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/spf13/pflag"
)

// runFresh runs labctl's root command with args and then resets every flag
// the run set on the subcommand: root's commands are shared between tests.
func runFresh(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	defer root.SetArgs(nil)
	err := root.ExecuteContext(context.Background())
	if cmd, _, ferr := root.Find(args); ferr == nil {
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if !f.Changed {
				return
			}
			if sv, ok := f.Value.(pflag.SliceValue); ok {
				_ = sv.Replace(nil)
			} else {
				_ = f.Value.Set(f.DefValue)
			}
			f.Changed = false
		})
	}
	return out.String(), err
}
