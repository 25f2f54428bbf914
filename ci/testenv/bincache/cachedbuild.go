package bincache

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
)

// cacheEntry is where a build of src belongs in the binary cache: the
// cache root and the entry's name, key(src, the Go version).
func cacheEntry(ctx context.Context, src string, key func(src, goVersion string) (string, error)) (root, name string, err error) {
	goVersion, err := goEnv(ctx, "GOVERSION")
	if err != nil {
		return "", "", err
	}
	if name, err = key(src, goVersion); err != nil {
		return "", "", err
	}
	if root, err = Root(); err != nil {
		return "", "", err
	}
	return root, name, nil
}

// cachedBuild fills the cache directory dir once. A finished dir (done)
// is used as it is; otherwise build runs under dir's lock file, so
// concurrent callers (parallel test binaries) wait for one build and then
// find it done, into dir.partial, renamed to dir only when build succeeded:
// no caller ever sees half a build. src and the build log are named in the
// lock's waiting lines.
func cachedBuild(ctx context.Context, log *slog.Logger, root, dir, src string, done func(string) bool,
	build func(partial, buildLog string) error) error {
	if done(dir) {
		return nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("binary cache %s: %w", root, err)
	}
	buildLog := dir + ".build.log"
	unlock, err := lockFile(ctx, dir+".lock", log, src, buildLog)
	if err != nil {
		return err
	}
	defer unlock()
	if done(dir) { // built by the process we waited for
		return nil
	}
	partial := dir + ".partial"
	_ = os.RemoveAll(partial)
	if err := os.MkdirAll(partial, 0o755); err != nil {
		return err
	}
	if err := build(partial, buildLog); err != nil {
		return err
	}
	_ = os.RemoveAll(dir)
	if err := os.Rename(partial, dir); err != nil {
		return fmt.Errorf("binary cache: %w", err)
	}
	return nil
}

// TailFile is the last n lines of the log at path, each set off by "  | ",
// as an error quotes a failed build's log; ci/testenv quotes its
// components' logs the same way. It reads at most the last 64 KiB.
func TailFile(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	const max = 64 << 10
	if st, err := f.Stat(); err == nil && st.Size() > max {
		_, _ = f.Seek(st.Size()-max, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  | " + strings.Join(lines, "\n  | ")
}
