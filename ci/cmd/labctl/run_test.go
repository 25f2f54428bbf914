package main

import (
	"context"
	"strings"
	"testing"
)

// run hands the lab to `labctl test` in-process, with its state and report
// dirs; against an empty state dir that command's own error comes back.
func TestRunTestUsesTheTestCommand(t *testing.T) {
	dir := t.TempDir()
	err := runTest(context.Background(), dir, dir+"/reports", "TC-01", 2)
	if err == nil || !strings.Contains(err.Error(), "state dir "+dir+" has no lab.yaml") {
		t.Fatalf("err = %v, want labctl test's message about the state dir", err)
	}
	test, _, _ := root.Find([]string{"test"})
	for flag, want := range map[string]string{"state-dir": dir, "report-dir": dir + "/reports", "run": "TC-01", "parallel": "2"} {
		if got := test.Flags().Lookup(flag).Value.String(); got != want {
			t.Errorf("labctl test --%s = %q, want %q", flag, got, want)
		}
	}
	for _, f := range []string{"state-dir", "report-dir", "run", "parallel"} {
		_ = test.Flags().Set(f, test.Flags().Lookup(f).DefValue)
	}
}
