package hostdaemon

import (
	"bytes"
	"context"
	"log/slog"
	"os"
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
	if err := BuildStatic(context.Background(), log, wrapperPackage, "the runtime wrapper", out); err != nil {
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
	err := BuildStatic(context.Background(), nil, wrapperPackage+"/nonexistent", "nothing", filepath.Join(t.TempDir(), "x"))
	if err == nil || !strings.Contains(err.Error(), "nonexistent") {
		t.Errorf("a package that does not exist: %v", err)
	}
}
