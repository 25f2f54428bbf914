package gobuild

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cachedHello is a Cached build of a one-file module with no
// dependencies, laid out by Prepare as the real builds lay theirs out.
func cachedHello(t *testing.T, entry, source string, prepared *int) Cached {
	t.Helper()
	return Cached{
		Name: "hello", Source: "example.test/hello@v0", Entry: entry, Estimate: "seconds",
		Prepare: func(ctx context.Context, partial string, logf *os.File) (string, []string, error) {
			*prepared++
			dir := filepath.Join(partial, "src")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return "", nil, err
			}
			for name, body := range map[string]string{"go.mod": "module example.test/hello\n\ngo 1.22\n", "main.go": source} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					return "", nil, err
				}
			}
			return dir, []string{"CGO_ENABLED=0", "GOPROXY=off", "GOFLAGS=-mod=mod"}, nil
		},
		Args:       func(out string) []string { return []string{"build", "-o", out + "/", "."} },
		Count:      func(context.Context, string, []string) int { return 1 },
		Rename:     map[string]string{"hello": "greeter"},
		DropSource: true,
	}
}

// TestCachedBuildsOnceRenamesAndDropsTheSource: the first Build prepares
// the source, builds, renames the binary and removes the source; the second
// reuses the entry without preparing anything.
func TestCachedBuildsOnceRenamesAndDropsTheSource(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	entry := filepath.Join(t.TempDir(), "go", "hello-key")
	prepared := 0
	c := cachedHello(t, entry, "package main\n\nfunc main() {}\n", &prepared)
	bin, err := c.Build(context.Background(), log)
	if err != nil {
		t.Fatal(err)
	}
	if bin != filepath.Join(entry, "bin") {
		t.Errorf("bin = %s, want the entry's bin/", bin)
	}
	if _, err := os.Stat(filepath.Join(bin, "greeter")); err != nil {
		t.Errorf("the renamed binary: %v", err)
	}
	if _, err := os.Stat(filepath.Join(entry, "src")); !os.IsNotExist(err) {
		t.Errorf("the source stays after the build (DropSource): %v", err)
	}
	if _, err := c.Build(context.Background(), log); err != nil || prepared != 1 {
		t.Errorf("second Build: err %v, prepared %d times, want once", err, prepared)
	}
}

// TestCachedBuildFailureNamesTheBuildAndItsLog: a failing go build leaves
// no entry and says which build failed, where it ran and the log's end.
func TestCachedBuildFailureNamesTheBuildAndItsLog(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	entry := filepath.Join(t.TempDir(), "go", "hello-key")
	prepared := 0
	_, err := cachedHello(t, entry, "package main\n\nfunc main() { undefinedName() }\n", &prepared).Build(context.Background(), log)
	if err == nil || !strings.Contains(err.Error(), "build hello: go build in ") || !strings.Contains(err.Error(), "undefinedName") {
		t.Fatalf("err = %v, want the build, its directory and the compiler's message", err)
	}
	if _, err := os.Stat(filepath.Join(entry, "bin")); !os.IsNotExist(err) {
		t.Errorf("a failed build left %s/bin: %v", entry, err)
	}
}
