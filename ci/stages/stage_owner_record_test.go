package stages

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/stages/internal/owner"
)

// TestOwnerRecordIsMadeOnceAndWrittenSafely: a state dir gets one owner ID
// (128 random bits) and keeps it; a damaged record stops labctl instead of
// being taken for "nothing created"; writing never follows a file planted
// at the record's name.
func TestOwnerRecordIsMadeOnceAndWrittenSafely(t *testing.T) {
	e, _, _, _ := testEnv(t)
	if _, ok, err := owner.Read(e.State); ok || err != nil {
		t.Fatalf("fresh state dir: record ok = %v, %v; want none", ok, err)
	}
	first, err := e.ensureOwner()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(first.ID) {
		t.Errorf("owner ID %q, want 32 hex digits", first.ID)
	}
	again, err := e.ensureOwner()
	if err != nil || again.ID != first.ID {
		t.Errorf("second ensureOwner = %q, %v; want the same ID %q", again.ID, err, first.ID)
	}
	other, _, _, _ := testEnv(t)
	if o, _ := other.ensureOwner(); o.ID == first.ID {
		t.Error("two state dirs got the same owner ID")
	}

	// A victim file behind a symlink at the record's name stays as it was.
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(e.State.OwnerRecordPath()); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, e.State.OwnerRecordPath()); err != nil {
		t.Fatal(err)
	}
	if err := owner.Write(e.State, first); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "mine" {
		t.Errorf("the symlink's target was written: %q", b)
	}
	if fi, err := os.Lstat(e.State.OwnerRecordPath()); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("record is %v, %v; want a regular file", fi.Mode(), err)
	}
	if left, _ := filepath.Glob(e.State.OwnerRecordPath() + ".*"); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}

	if err := os.WriteFile(e.State.OwnerRecordPath(), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ensureOwner(); err == nil || !strings.Contains(err.Error(), e.State.OwnerRecordPath()) {
		t.Errorf("damaged record: ensureOwner = %v; want an error naming %s", err, e.State.OwnerRecordPath())
	}
	if _, err := e.ownedContainers(t.Context()); err == nil {
		t.Error("damaged record: Down would go on as if the state dir had created nothing")
	}
}
