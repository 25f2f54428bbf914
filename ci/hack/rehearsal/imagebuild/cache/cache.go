// Package cache is where the rehearsal's image builds keep what they made:
// one directory per build step, keyed by what went into it, filled once
// under a lock and renamed into place only when the step succeeded, so a
// second run reuses every finished step and never sees half of one.
package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// EnvRoot overrides the cache root (default ~/.cache/gpu-lab/rehearsal,
// under $XDG_CACHE_HOME when that is set).
const EnvRoot = "GPU_LAB_REHEARSAL_CACHE"

// Root is the rehearsal cache: $GPU_LAB_REHEARSAL_CACHE, else
// gpu-lab/rehearsal in the user's cache directory.
func Root() (string, error) {
	if d := os.Getenv(EnvRoot); d != "" {
		return d, nil
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("rehearsal cache: no home directory (%w); set %s", err, EnvRoot)
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "gpu-lab", "rehearsal"), nil
}

// Key hashes the parts that decide a step's output into a short hex key.
// Parts are separated, so ("ab","c") and ("a","bc") differ.
func Key(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s\n", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// doneFile marks a finished entry: written last, inside the partial
// directory, before the rename.
const doneFile = ".done"

// Done reports whether dir is a finished entry.
func Done(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, doneFile))
	return err == nil
}

// Fill makes dir a finished entry: at once when it is one, else by build
// into dir+".partial" under dir+".lock" (a concurrent run waits, then finds
// it done), renamed to dir only when build succeeded. build's log belongs
// at dir+".log", which stays beside the entry for the next reader.
// While another run holds the lock, a line naming what and that run's log
// is logged every half minute.
func Fill(ctx context.Context, log *slog.Logger, what, dir string, build func(partial, logPath string) error) error {
	if Done(dir) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("rehearsal cache %s: %w", dir, err)
	}
	unlock, err := lock(ctx, dir+".lock", func(waited time.Duration) {
		log.Info(fmt.Sprintf("waiting for another run building %s: %s so far", what, waited.Round(time.Second)), "log", dir+".log")
	})
	if err != nil {
		return err
	}
	defer unlock()
	if Done(dir) { // built by the run we waited for
		return nil
	}
	partial := dir + ".partial"
	if err := os.RemoveAll(partial); err != nil {
		return fmt.Errorf("rehearsal cache: %w", err)
	}
	if err := os.MkdirAll(partial, 0o755); err != nil {
		return fmt.Errorf("rehearsal cache: %w", err)
	}
	if err := build(partial, dir+".log"); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(partial, doneFile), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		return fmt.Errorf("rehearsal cache: %w", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("rehearsal cache: %w", err)
	}
	if err := os.Rename(partial, dir); err != nil {
		return fmt.Errorf("rehearsal cache: %w", err)
	}
	return nil
}

// lock takes an exclusive flock on path, polling so ctx can end the wait.
func lock(ctx context.Context, path string, waiting func(time.Duration)) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("rehearsal cache lock %s: %w", path, err)
	}
	start, told := time.Now(), time.Duration(0)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("rehearsal cache lock %s: %w", path, err)
		}
		if w := time.Since(start); w-told >= 25*time.Second {
			told = w
			waiting(w)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for rehearsal cache lock %s (another run builds this step): %w", path, ctx.Err())
		case <-time.After(time.Second):
		}
	}
}
