package gobuild

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/cache"
	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

// Cached is one `go build` into a cache entry, the steps every Go build of
// the rehearsal shares whatever its source: reuse a finished entry, else
// lay the source out, build with progress lines, rename the binaries and
// log how long it took. Program.Build and the vendored builds of Docker
// (ci/hack/rehearsal/moduleimages) fill it in.
type Cached struct {
	// Name names the build in log lines and errors.
	Name string
	// Source says what is built ("helm.sh/helm/v3@v3.19.0") in the first
	// log line.
	Source string
	// Entry is the cache entry; the binaries go to its bin/.
	Entry string
	// Estimate is said with every progress line.
	Estimate string
	// Prepare lays the source out under partial (logging to logf) and
	// returns where go build runs and the environment it adds.
	Prepare func(ctx context.Context, partial string, logf *os.File) (dir string, env []string, err error)
	// Args are go build's arguments writing the binaries into out.
	Args func(out string) []string
	// Count is how many packages the build compiles (0: unknown), for the
	// progress lines.
	Count func(ctx context.Context, dir string, env []string) int
	// Rename renames built binaries (go build's name → the image's).
	Rename map[string]string
	// DropSource removes the build directory once built (a vendored tree
	// is hundreds of MB and never needed again).
	DropSource bool
}

// Build returns the entry's bin/ directory, building into it the first time.
func (c Cached) Build(ctx context.Context, log *slog.Logger) (string, error) {
	bin := filepath.Join(c.Entry, "bin")
	if cache.Done(c.Entry) {
		log.Info("reusing built binaries", "program", c.Name, "dir", bin)
		return bin, nil
	}
	start := time.Now()
	err := cache.Fill(ctx, log, c.Name, c.Entry, func(partial, logPath string) error {
		logf, err := os.Create(logPath)
		if err != nil {
			return err
		}
		defer logf.Close()
		log.Info(fmt.Sprintf("building %s (%s) once; a first build takes %s; progress every 25 s", c.Name, c.Source, c.Estimate),
			"log", logPath, "into", c.Entry)
		dir, env, err := c.Prepare(ctx, partial, logf)
		if err != nil {
			return err
		}
		stop := bincache.SpeakWhileGoBuild(ctx, log, c.Name, c.Estimate, logPath, func(ctx context.Context) int { return c.Count(ctx, dir, env) })
		err = run(ctx, logf, dir, env, "go", c.Args(filepath.Join(partial, "bin"))...)
		stop()
		if err != nil {
			return fmt.Errorf("build %s: go build in %s: %w; %s ends with:\n%s", c.Name, dir, err, logPath, bincache.TailFile(logPath, 30))
		}
		for from, to := range c.Rename {
			if err := os.Rename(filepath.Join(partial, "bin", from), filepath.Join(partial, "bin", to)); err != nil {
				return fmt.Errorf("build %s: %w", c.Name, err)
			}
		}
		if c.DropSource {
			return os.RemoveAll(dir)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	log.Info("built", "program", c.Name, "dir", bin, "took", time.Since(start).Round(time.Second).String())
	return bin, nil
}
