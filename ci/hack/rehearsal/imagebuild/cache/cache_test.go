package cache

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

func TestKeySeparatesItsParts(t *testing.T) {
	if Key("ab", "c") == Key("a", "bc") {
		t.Error(`Key("ab","c") == Key("a","bc")`)
	}
	if Key("a") != Key("a") || len(Key("a")) != 16 {
		t.Errorf("Key is not a stable 16-digit key: %q", Key("a"))
	}
}

// A finished entry is reused; a failed build leaves none and is retried.
func TestFillBuildsOnceAndOnlyKeepsSuccess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "entry")
	ctx := context.Background()
	calls := 0
	fail := errors.New("boom")
	err := Fill(ctx, slog.New(slog.DiscardHandler), "x", dir, func(partial, log string) error {
		calls++
		return fail
	})
	if !errors.Is(err, fail) || Done(dir) {
		t.Fatalf("failed build: err %v, done %v", err, Done(dir))
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a failed build left %s", dir)
	}
	build := func(partial, log string) error {
		calls++
		return os.WriteFile(filepath.Join(partial, "out"), []byte("x"), 0o644)
	}
	for range 2 {
		if err := Fill(ctx, slog.New(slog.DiscardHandler), "x", dir, build); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 2 {
		t.Errorf("build ran %d times, want 2 (one failure, one success, then reuse)", calls)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out")); err != nil || string(b) != "x" {
		t.Errorf("entry content %q, %v", b, err)
	}
}

func TestRootHonoursTheOverride(t *testing.T) {
	t.Setenv(EnvRoot, "/x/y")
	if r, err := Root(); err != nil || r != "/x/y" {
		t.Errorf("Root = %q, %v", r, err)
	}
	t.Setenv(EnvRoot, "")
	t.Setenv("XDG_CACHE_HOME", "/c")
	if r, _ := Root(); r != "/c/gpu-lab/rehearsal" {
		t.Errorf("Root = %q, want /c/gpu-lab/rehearsal", r)
	}
}
