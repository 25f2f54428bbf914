package daggerbuild

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gitsnap"
)

// ZipModule makes m's module zip from the git directory gitDir as cmd/go
// makes it from a repository (modfetch/coderepo.go, (*codeRepo).Zip, Go
// 1.26): the files under m.Subdir at m.Commit, plus the repository
// root's LICENSE when a module in a subdirectory has none of its own;
// modzip then drops what a module zip never holds (nested modules,
// vendor directories, non-regular files). It writes the zip and go.mod
// under work and returns their paths and h1 hashes.
func ZipModule(ctx context.Context, gitDir string, m VCSModule, work string) (Zipped, error) {
	repo, err := gitsnap.Open(gitDir)
	if err != nil {
		return Zipped{}, fmt.Errorf("module %s@%s: %w", m.Path, m.Version, err)
	}
	if err := repo.Check(ctx, gitsnap.Pin{Repo: m.Repo, Commit: m.Commit}); err != nil {
		return Zipped{}, fmt.Errorf("module %s@%s: %w", m.Path, m.Version, err)
	}
	c, err := repo.Commit(ctx, m.Commit)
	if err != nil {
		return Zipped{}, fmt.Errorf("module %s@%s: %w", m.Path, m.Version, err)
	}
	src := filepath.Join(work, "src")
	if err := os.RemoveAll(src); err != nil {
		return Zipped{}, err
	}
	var paths []string
	if m.Subdir != "" {
		paths = []string{m.Subdir}
	}
	if err := repo.Extract(ctx, m.Commit, src, paths...); err != nil {
		return Zipped{}, fmt.Errorf("module %s@%s: %w", m.Path, m.Version, err)
	}
	dir := filepath.Join(src, filepath.FromSlash(m.Subdir))
	if m.Subdir != "" {
		if _, err := os.Lstat(filepath.Join(dir, "LICENSE")); errors.Is(err, fs.ErrNotExist) {
			lic, lerr := repo.File(ctx, m.Commit, "LICENSE")
			if lerr == nil { // cmd/go adds it only when the root has one
				if err := os.WriteFile(filepath.Join(dir, "LICENSE"), lic, 0o644); err != nil {
					return Zipped{}, err
				}
			}
		}
	}
	z := Zipped{Module: m, Time: c.Time, Zip: filepath.Join(work, "module.zip"), GoMod: filepath.Join(dir, "go.mod")}
	f, err := os.Create(z.Zip)
	if err != nil {
		return Zipped{}, err
	}
	err = modzip.CreateFromDir(f, module.Version{Path: m.Path, Version: m.Version}, dir)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Zipped{}, fmt.Errorf("module %s@%s: zip %s: %w", m.Path, m.Version, dir, err)
	}
	if z.ZipHash, err = dirhash.HashZip(z.Zip, dirhash.Hash1); err != nil {
		return Zipped{}, fmt.Errorf("module %s@%s: %w", m.Path, m.Version, err)
	}
	if z.ModHash, err = GoModHash(z.GoMod); err != nil {
		return Zipped{}, fmt.Errorf("module %s@%s: %w", m.Path, m.Version, err)
	}
	return z, nil
}

// Zipped is a module zip made from a snapshot, with its go.mod.
type Zipped struct {
	Module           VCSModule
	Time             time.Time
	Zip, GoMod       string
	ZipHash, ModHash string
}

// GoModHash is the go.sum hash of a go.mod file ("path version/go.mod"
// lines), as cmd/go computes it: dirhash.Hash1 of the one file "go.mod".
func GoModHash(path string) (string, error) {
	return dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) { return os.Open(path) })
}
