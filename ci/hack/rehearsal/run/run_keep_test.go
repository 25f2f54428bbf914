package run

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
)

// --keep with a failing case: the error names the case, nothing is taken
// down or removed, and the report says how to remove each thing left.
func TestRunKeep(t *testing.T) {
	w := &world{t: t, failedCase: "TC-02"}
	o, d := setup(t, w)
	o.Keep = true
	rep, err := Run(context.Background(), o, d)
	if err == nil || !strings.Contains(err.Error(), "the suite failed 1 of 2 cases: TC-02: pod stayed Pending") {
		t.Fatalf("Run error = %v, want the failed case named", err)
	}
	if want := []string{"daemon start", "labctl up", "labctl test"}; !slices.Equal(w.events, want) {
		t.Errorf("events %q, want %q", w.events, want)
	}
	if !strings.HasSuffix(rep.Steps[0].Command, " --keep") {
		t.Errorf("labctl up was not given --keep: %q", rep.Steps[0].Command)
	}
	for _, left := range []string{o.State, o.LibModulesDir} {
		if _, err := os.Stat(left); err != nil {
			t.Errorf("%s removed although kept: %v", left, err)
		}
	}
	if n, _ := readInt(o.Limits[0].Path); n != 524288 {
		t.Errorf("the raised limit is %d while the lab is kept, want 524288", n)
	}
	// What the report says to run undoes the limit and /lib/modules too.
	if err := hostdaemon.Stop(context.Background(), hostdaemon.StopOptions{Dir: o.Daemon.Dir}); err != nil {
		t.Fatalf("daemon down of the kept rehearsal: %v", err)
	}
	if n, _ := readInt(o.Limits[0].Path); n != 192530 {
		t.Errorf("the raised limit is %d after daemon down, want 192530 restored", n)
	}
	if _, err := os.Stat(o.LibModulesDir); !os.IsNotExist(err) {
		t.Errorf("%s left after daemon down (%v)", o.LibModulesDir, err)
	}
	md := rep.markdown()
	for _, want := range []string{"kept (--keep); remove the lab: ", "rehearse daemon down --dir " + o.Daemon.Dir,
		"the empty " + o.LibModulesDir, o.Limits[0].Path + " raised from 192530", "- failed TC-02: pod stayed Pending"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}
