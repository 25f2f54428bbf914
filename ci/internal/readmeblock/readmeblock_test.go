package readmeblock

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "README.md")
	doc := "# T\n<!-- b:start -->\nold\n<!-- b:end -->\ntail\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	got, stale, err := Sync(path, "b", "new\n", false)
	if err != nil || !stale || got != "old\n" {
		t.Fatalf("stale block: got %q stale %v err %v", got, stale, err)
	}
	if _, _, err := Sync(path, "b", "new\n", true); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "# T\n<!-- b:start -->\nnew\n<!-- b:end -->\ntail\n" {
		t.Errorf("after update: %q", b)
	}
	if _, stale, err := Sync(path, "b", "new\n", false); err != nil || stale {
		t.Errorf("current block: stale %v err %v", stale, err)
	}
	if _, _, err := Sync(path, "missing", "x", false); err == nil || !strings.Contains(err.Error(), "missing:start") {
		t.Errorf("missing markers: err = %v", err)
	}
}
