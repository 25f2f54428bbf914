package hostdaemon

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A build says what it builds, where its log is and how long it took; a
// failed one returns go build's output.
func TestBuildStaticSpeaks(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	out := filepath.Join(t.TempDir(), "runc-capfilter")
	if err := BuildStatic(context.Background(), log, wrapperPackage, "the runtime wrapper", out, noCommit); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() == 0 {
		t.Fatalf("no binary at %s: %v", out, err)
	}
	for _, want := range []string{"building the runtime wrapper", "log=" + out + ".build.log", "built the runtime wrapper", "took="} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, buf.String())
		}
	}
	err := BuildStatic(context.Background(), nil, wrapperPackage+"/nonexistent", "nothing", filepath.Join(t.TempDir(), "x"), noCommit)
	if err == nil || !strings.Contains(err.Error(), "nonexistent") {
		t.Errorf("a package that does not exist: %v", err)
	}
}

// Whether a build records the commit is BuildStatic's choice, not the
// machine's: with GOFLAGS=-buildvcs=false in the environment (as go env
// has it on some machines, where every rehearsal report said "commit
// unknown"), StampCommit still records it, and noCommit leaves it out
// where GOFLAGS says nothing.
func TestBuildStaticStampsTheCommitOnlyWhenAsked(t *testing.T) {
	if err := exec.Command("git", "rev-parse", "--git-dir").Run(); err != nil {
		t.Skip("not a git checkout (the Dagger module's source has no .git): no commit to stamp")
	}
	for _, tc := range []struct {
		stamp   Stamp
		goflags string
		want    bool
	}{
		{StampCommit, "-buildvcs=false", true},
		{noCommit, "", false},
	} {
		t.Setenv("GOFLAGS", tc.goflags)
		out := filepath.Join(t.TempDir(), "runc-capfilter")
		if err := BuildStatic(context.Background(), nil, wrapperPackage, "the runtime wrapper", out, tc.stamp); err != nil {
			t.Fatal(err)
		}
		info, err := buildinfo.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, s := range info.Settings {
			got = got || s.Key == "vcs.revision" && s.Value != ""
		}
		if got != tc.want {
			t.Errorf("-buildvcs=%s with GOFLAGS=%q: vcs.revision recorded %v, want %v", tc.stamp, tc.goflags, got, tc.want)
		}
	}
}
