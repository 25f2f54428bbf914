package daggerbuild

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/cache"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gitsnap"
)

// Layout is where the Dagger build keeps what it made, under the
// rehearsal cache: Root is <cache>/dagger.
type Layout struct{ Root string }

// DefaultLayout is <rehearsal cache>/dagger.
func DefaultLayout() (Layout, error) {
	root, err := cache.Root()
	if err != nil {
		return Layout{}, err
	}
	return Layout{Root: filepath.Join(root, "dagger")}, nil
}

// SourceDir is the extracted tree of the tag (DaggerSourcePaths).
func (l Layout) SourceDir() string {
	return filepath.Join(l.Root, "src", "dagger-"+Version+"-"+DaggerPin.Commit[:12]+"-"+cache.Key(DaggerSourcePaths...))
}

// RefusedProxyDir is the file GOPROXY tree of RefusedModules.
func (l Layout) RefusedProxyDir() string {
	parts := []string{"refused"}
	for _, m := range RefusedModules {
		parts = append(parts, m.Path, m.Version, m.Commit, m.Subdir)
	}
	return filepath.Join(l.Root, "proxy", "refused-"+cache.Key(parts...))
}

// Snapshots finds each repository's git directory under a mirror root
// (the fetch tool's OWNER+NAME/repo layout), unless dirs names it.
type Snapshots struct {
	Mirror string
	Dirs   map[string]string // owner/name → git directory
}

// Dir is repo's git directory.
func (s Snapshots) Dir(repo string) string {
	if d := s.Dirs[repo]; d != "" {
		return d
	}
	return filepath.Join(s.Mirror, SnapshotDir(repo))
}

// Source extracts the tag's tree once (checking on every call that the
// tag still names the pinned commit) and returns its directory.
func Source(ctx context.Context, log *slog.Logger, l Layout, snaps Snapshots) (string, error) {
	gitDir := snaps.Dir(DaggerPin.Repo)
	repo, err := gitsnap.Open(gitDir)
	if err != nil {
		return "", err
	}
	if err := repo.Check(ctx, DaggerPin); err != nil {
		return "", err
	}
	dir := l.SourceDir()
	err = cache.Fill(ctx, log, "dagger "+Version+" source", dir, func(partial, _ string) error {
		return repo.Extract(ctx, DaggerPin.Commit, filepath.Join(partial, "tree"), DaggerSourcePaths...)
	})
	if err != nil {
		return "", fmt.Errorf("dagger %s source from %s: %w", Version, gitDir, err)
	}
	return filepath.Join(dir, "tree"), nil
}

// RefusedProxy makes the file GOPROXY tree of RefusedModules once, each
// zip checked against the go.sum of the tag's tree before it is written,
// and returns its file:// URL.
func RefusedProxy(ctx context.Context, log *slog.Logger, l Layout, snaps Snapshots, tree string) (string, error) {
	goSum, err := os.ReadFile(filepath.Join(tree, "go.sum"))
	if err != nil {
		return "", err
	}
	sums, err := ParseGoSum(goSum)
	if err != nil {
		return "", fmt.Errorf("dagger %s go.sum: %w", Version, err)
	}
	dir := l.RefusedProxyDir()
	err = cache.Fill(ctx, log, "modules the proxy refuses", dir, func(partial, _ string) error {
		for _, m := range RefusedModules {
			z, err := ZipModule(ctx, snaps.Dir(m.Repo), m, filepath.Join(partial, "work"))
			if err != nil {
				return err
			}
			if err := sums.Check(m, z.ZipHash, z.ModHash); err != nil {
				return err
			}
			if err := AddToProxy(filepath.Join(partial, "goproxy"), z); err != nil {
				return err
			}
			log.Info("zipped module from its git snapshot; h1 equals dagger's go.sum", "module", m.Path+"@"+m.Version, "h1", z.ZipHash)
		}
		return os.RemoveAll(filepath.Join(partial, "work"))
	})
	if err != nil {
		return "", err
	}
	return "file://" + filepath.Join(dir, "goproxy"), nil
}

// LatestEngineArchive is the newest finished engine image archive of
// Version under the layout (SaveImage's entries).
func (l Layout) LatestEngineArchive() (string, error) {
	entries, err := filepath.Glob(filepath.Join(l.Root, "image", "engine-"+Version+"-*"))
	if err != nil {
		return "", err
	}
	best, bestTime := "", int64(0)
	for _, e := range entries {
		if !cache.Done(e) {
			continue
		}
		fi, err := os.Stat(filepath.Join(e, "engine.tar"))
		if err == nil && fi.ModTime().UnixNano() > bestTime {
			best, bestTime = filepath.Join(e, "engine.tar"), fi.ModTime().UnixNano()
		}
	}
	if best == "" {
		return "", fmt.Errorf("no engine image of %s under %s: build it with `rehearse dagger build`", Version, filepath.Join(l.Root, "image"))
	}
	return best, nil
}

// CLI is where Build links the dagger CLI it built.
func (l Layout) CLI() string { return filepath.Join(l.Root, "bin", "dagger") }
