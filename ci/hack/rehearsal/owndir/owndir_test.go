package owndir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRemoveIfEmpty(t *testing.T) {
	root := t.TempDir()
	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := RemoveIfEmpty(empty, "the registry"); err != nil {
		t.Errorf("an empty directory: %v", err)
	}
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Errorf("the empty directory is still there (%v)", err)
	}
	if err := RemoveIfEmpty(filepath.Join(root, "missing"), "the registry"); err != nil {
		t.Errorf("a missing directory: %v", err)
	}
	full := filepath.Join(root, "full")
	if err := os.MkdirAll(filepath.Join(full, "theirs"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := RemoveIfEmpty(full, "the daemon")
	if err == nil || !strings.Contains(err.Error(), "the daemon did not make (theirs)") {
		t.Errorf("a directory holding another's file: %v", err)
	}
	if _, serr := os.Stat(filepath.Join(full, "theirs")); serr != nil {
		t.Errorf("another's file was touched: %v", serr)
	}
}
