package imagebuild

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/atomicfile"
	"github.com/gpu-lab/gpu-lab/ci/images"
)

// Saver is what writing a bundle needs of the daemon (docker.CLI).
type Saver interface {
	Save(ctx context.Context, ref string, w io.Writer) error
}

// bundleEntries are the index entries of the plan's images that were
// built, in plan order: each under the reference `labctl images` lists
// (digest pins kept), in the archive images.ArchiveName names, with the
// built image's ID (ci/images Load checks it, and names a digest-pinned
// reference by it).
func bundleEntries(p Plan, rep Report) []images.Entry {
	built := map[string]Result{}
	for _, r := range rep.Results {
		if r.ID != "" {
			built[r.Ref] = r
		}
	}
	var out []images.Entry
	for _, rec := range append(append([]recipe(nil), p.Nodes...), p.Bundle...) {
		if r, ok := built[rec.Ref]; ok {
			out = append(out, images.Entry{Ref: rec.Ref, File: images.ArchiveName(rec.Ref), ID: r.ID})
		}
	}
	return out
}

// mergeIndex is old with entries added or replaced by reference; old's
// charts and other images stay (a maintainer's bundle of charts and of
// images the rehearsal cannot build is completed, not replaced).
func mergeIndex(old images.Index, entries []images.Entry) images.Index {
	idx := images.Index{Charts: old.Charts}
	at := map[string]int{}
	for _, e := range old.Images {
		at[images.Normalize(e.Ref)] = len(idx.Images)
		idx.Images = append(idx.Images, e)
	}
	for _, e := range entries {
		if i, ok := at[images.Normalize(e.Ref)]; ok {
			idx.Images[i] = e
			continue
		}
		at[images.Normalize(e.Ref)] = len(idx.Images)
		idx.Images = append(idx.Images, e)
	}
	return idx
}

// WriteBundle writes the built images of the plan into dir (docker save
// archives, index.json merged with what dir holds). An archive already
// there for the same reference and image ID is kept.
func WriteBundle(ctx context.Context, d Saver, dir string, p Plan, rep Report, log *slog.Logger) (images.Index, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return images.Index{}, fmt.Errorf("bundle %s: %w", dir, err)
	}
	var old images.Index
	if _, err := os.Stat(filepath.Join(dir, images.IndexFile)); err == nil {
		if old, err = images.ReadIndex(dir); err != nil {
			return images.Index{}, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return images.Index{}, fmt.Errorf("bundle %s: %w", dir, err)
	}
	have := map[string]string{}
	for _, e := range old.Images {
		have[e.Ref] = e.ID
	}
	local := map[string]string{}
	for _, r := range rep.Results {
		local[r.Ref] = r.Local
	}
	entries := bundleEntries(p, rep)
	for _, e := range entries {
		path := filepath.Join(dir, e.File)
		if _, err := os.Stat(path); err == nil && have[e.Ref] == e.ID {
			log.Info("bundle archive up to date", "ref", e.Ref, "file", e.File)
			continue
		}
		if err := save(ctx, d, local[e.Ref], path); err != nil {
			return images.Index{}, fmt.Errorf("bundle %s: image %s: %w", dir, e.Ref, err)
		}
		log.Info("saved image into bundle", "ref", e.Ref, "as", local[e.Ref], "file", e.File)
	}
	idx := mergeIndex(old, entries)
	return idx, images.WriteIndex(dir, idx)
}

// save writes ref's archive to path whole or not at all (atomicfile: the
// bundle directory is the user's choice, and this runs as root).
func save(ctx context.Context, d Saver, ref, path string) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { return d.Save(ctx, ref, w) })
}
