package images

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sourcegraph/conc/pool"
)

// IndexFile names a bundle's index inside its directory.
const IndexFile = "index.json"

// Index is a bundle: which archive holds which image, and which holds
// which helm chart (under ChartsDir; none in a bundle of images only).
type Index struct {
	Images []Entry      `json:"images"`
	Charts []ChartEntry `json:"charts,omitempty"`
}

// Entry is one archive of a bundle.
type Entry struct {
	// Ref is the reference the lab uses (as List names it).
	Ref string `json:"ref"`
	// File is the archive, relative to the bundle directory.
	File string `json:"file"`
	// ID is the image ID the daemon that saved the archive gave the
	// reference (`labctl images save`): a classic store's config digest, a
	// containerd store's manifest digest.
	ID string `json:"id,omitempty"`
	// Config and Manifest are what the archive itself names (ArchiveImage):
	// its image's config digest and, in an OCI layout, the digest its
	// index.json points to. `labctl images save` records them from the
	// archive it wrote, the Dagger module from the tarball its engine
	// exported (`labctl images --bundle-index --archives`). Loading checks
	// the archive against ID, Config and Manifest, and a digest-pinned
	// entry that records one counts as tied to its pin by the index's
	// writer, which resolved the pinned reference (bundle_pin.go).
	Config   string `json:"config,omitempty"`
	Manifest string `json:"manifest,omitempty"`
}

// Daemon is what bundles need from Docker (docker.CLI).
type Daemon interface {
	EnsureImage(ctx context.Context, ref string, timeout time.Duration) error
	Save(ctx context.Context, ref string, w io.Writer) error
	Load(ctx context.Context, archive io.Reader) ([]string, error)
	Tag(ctx context.Context, src, dst string) error
	// ImageIDs answers for all refs in one command, and fails when any is
	// missing.
	ImageIDs(ctx context.Context, refs ...string) ([]string, error)
}

// BundleRefs are the references a bundle of the lab holds: every listed
// image that is pulled from a registry and not inside a node image, once.
func BundleRefs(list []Image) []string {
	var out []string
	seen := map[string]bool{}
	for _, i := range list {
		if !i.Bundled() || seen[Normalize(i.Ref)] {
			continue
		}
		seen[Normalize(i.Ref)] = true
		out = append(out, i.Ref)
	}
	return out
}

// archivesAtOnce is how many archives Save and Load handle at a time: each
// docker save or load streams one image and mostly waits on the daemon, so
// a few at once finish the lab's ~17 images sooner; more would only
// contend for the disk.
const archivesAtOnce = 4

// Save writes every reference into dir as a docker save archive plus the
// index, in the order of refs. Each image must be on the daemon or
// pullable within pullTimeout. The daemon is asked for every ID at once;
// when one is missing, each image is made sure of (ensureAll), so a missing
// one fails the save before anything is written, and it is the first
// missing one in the order of refs that is named, whichever failed first.
func Save(ctx context.Context, d Daemon, refs []string, dir string, pullTimeout time.Duration, log *slog.Logger) (Index, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Index{}, fmt.Errorf("image bundle %s: %w", dir, err)
	}
	ids, err := d.ImageIDs(ctx, refs...)
	if err != nil {
		// Not all there (or no answer): pull what is missing, then ask again.
		if err := ensureAll(ctx, d, refs, pullTimeout); err != nil {
			return Index{}, fmt.Errorf("image bundle: %w", err)
		}
		if ids, err = d.ImageIDs(ctx, refs...); err != nil {
			return Index{}, fmt.Errorf("image bundle: %w", err)
		}
	}
	entries := make([]Entry, len(refs))
	err = eachArchive(ctx, len(refs), func(ctx context.Context, i int) error {
		e := Entry{Ref: refs[i], File: ArchiveName(refs[i]), ID: ids[i]}
		if err := saveFile(ctx, d, refs[i], filepath.Join(dir, e.File)); err != nil {
			return err
		}
		if err := recordArchive(dir, &e, false); err != nil {
			return fmt.Errorf("image bundle: %s: %w", refs[i], err)
		}
		log.Info("saved image", "ref", refs[i], "file", e.File)
		entries[i] = e
		return nil
	})
	if err != nil {
		return Index{}, err
	}
	idx := Index{Images: entries}
	return idx, WriteIndex(dir, idx)
}

// ensureAll makes sure of every image, archivesAtOnce at a time (each is a
// docker command, or a pull, that mostly waits), and returns the error of
// the first one in order that failed. Once one failed, the images after it
// are not begun: they cannot change which is named, and without a registry
// each would wait out its own pull.
func ensureAll(ctx context.Context, d Daemon, refs []string, pullTimeout time.Duration) error {
	errs := make([]error, len(refs))
	var mu sync.Mutex
	failed := len(refs) // lowest index that failed so far
	p := pool.New().WithMaxGoroutines(archivesAtOnce)
	for i, ref := range refs {
		p.Go(func() {
			mu.Lock()
			skip := i > failed
			mu.Unlock()
			if skip {
				return
			}
			if err := d.EnsureImage(ctx, ref, pullTimeout); err != nil {
				mu.Lock()
				errs[i], failed = err, min(failed, i)
				mu.Unlock()
			}
		})
	}
	p.Wait()
	if failed < len(refs) {
		return errs[failed]
	}
	return nil
}

// eachArchive calls fn for 0..n-1, archivesAtOnce at a time. The first
// failure cancels the calls running and skips those not begun, and is the
// error returned (the others' are only that cancellation).
func eachArchive(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError().WithMaxGoroutines(archivesAtOnce)
	for i := range n {
		p.Go(func(ctx context.Context) error {
			if ctx.Err() != nil {
				return ctx.Err() // another failed (or the caller gave up): not begun
			}
			return fn(ctx, i)
		})
	}
	return p.Wait()
}

func saveFile(ctx context.Context, d Daemon, ref, path string) error {
	tmp := path + ".partial"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("image bundle: %w", err)
	}
	err = d.Save(ctx, ref, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("image bundle: %w", err)
	}
	return os.Rename(tmp, path)
}

// WriteIndex writes dir/index.json.
func WriteIndex(dir string, idx Index) error {
	b, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, IndexFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("image bundle index: %w", err)
	}
	return nil
}

// ReadIndex reads dir/index.json.
func ReadIndex(dir string) (Index, error) {
	raw, err := readIndexFile(dir)
	if err != nil {
		return Index{}, err
	}
	return parseIndex(dir, raw)
}

// maxIndexFile caps what a bundle's index.json (and LoadOnce's record of
// it) may take: the lab's ~17 images and a few charts are a few KB, and a
// file larger than this is none labctl or the Dagger module wrote.
const maxIndexFile = 1 << 20

// readIndexFile reads dir/index.json, a regular file of at most
// maxIndexFile bytes.
func readIndexFile(dir string) ([]byte, error) {
	b, err := readCapped(filepath.Join(dir, IndexFile), maxIndexFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("image bundle %s: %w (write one with `labctl images save %s`)", dir, err, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("image bundle %s: %w", dir, err)
	}
	return b, nil
}

// readCapped reads the regular file p, refusing one larger than limit
// bytes. It opens without blocking (a named pipe would wait for a
// writer) and checks what it opened.
func readCapped(p string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (mode %s)", p, fi.Mode())
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is larger than %d KiB, more than any bundle index takes: "+
			"not an index labctl or the Dagger module wrote", p, limit>>10)
	}
	return b, nil
}

// parseIndex reads raw, dir's index.json.
func parseIndex(dir string, raw []byte) (Index, error) {
	var idx Index
	if err := json.Unmarshal(raw, &idx); err != nil {
		return Index{}, fmt.Errorf("image bundle %s/%s: %w", dir, IndexFile, err)
	}
	for i, e := range idx.Images {
		if e.Ref == "" || e.File == "" || filepath.Base(e.File) != e.File {
			return Index{}, fmt.Errorf("image bundle %s/%s: entry %d: want a ref and a plain file name, got %+v", dir, IndexFile, i, e)
		}
	}
	for i, c := range idx.Charts {
		if c.Name == "" || c.Version == "" || c.File == "" || filepath.Base(c.File) != c.File {
			return Index{}, fmt.Errorf("image bundle %s/%s: chart %d: want a name, a version and a plain file name, got %+v", dir, IndexFile, i, c)
		}
	}
	return idx, nil
}

// Loaded maps each bundled reference to the name the daemon now knows it
// by: the reference itself, or for a digest-pinned reference the image ID
// (Docker records no digest for a loaded image, so `name@sha256:…` would
// not resolve and the daemon would try to pull).
type Loaded map[string]string

// Local is the name to start containers from: the loaded name, or ref.
func (l Loaded) Local(ref string) string {
	if n, ok := l[ref]; ok {
		return n
	}
	return ref
}

// Has reports whether ref came from the bundle.
func (l Loaded) Has(ref string) bool { _, ok := l[ref]; return ok }

// Load reads every archive of the bundle in dir into the daemon, a few at
// a time, checks each holds the image its index entry says, and names each
// image by its reference (docker tag; a digest-pinned one keeps its ID). An
// archive docker save wrote by name loads under that name, so it is not
// tagged again; the IDs of all the names are asked for in one command. A
// digest-pinned image nothing ties to its pin is refused (bundle_pin.go);
// LoadOnce can be told to load it anyway.
func Load(ctx context.Context, d Daemon, dir string, log *slog.Logger) (Loaded, error) {
	loaded, _, err := load(ctx, d, dir, LoadOptions{}, log)
	return loaded, err
}

// LoadOptions are the user's choices for Load.
type LoadOptions struct {
	// AllowUnverifiedPins loads a digest-pinned image that neither the
	// daemon, the archive nor the index ties to its pin, with a warning,
	// instead of refusing the bundle (AllowUnverifiedPinsFlag).
	AllowUnverifiedPins bool
}

// load is Load; it also returns the references loaded unverified.
func load(ctx context.Context, d Daemon, dir string, opts LoadOptions, log *slog.Logger) (Loaded, []string, error) {
	idx, err := ReadIndex(dir)
	if err != nil {
		return nil, nil, err
	}
	return loadIndex(ctx, d, dir, idx, opts, log)
}

// loadIndex is load of the bundle idx, read from dir.
func loadIndex(ctx context.Context, d Daemon, dir string, idx Index, opts LoadOptions, log *slog.Logger) (Loaded, []string, error) {
	// Before anything is loaded: each archive against its entry, and each
	// pin against what can tie it.
	checks, err := checkArchives(ctx, d, dir, idx, opts, log)
	if err != nil {
		return nil, nil, err
	}
	as := make([]string, len(idx.Images)) // what docker load named: a reference or an ID
	err = eachArchive(ctx, len(idx.Images), func(ctx context.Context, i int) error {
		e := idx.Images[i]
		name, err := loadFile(ctx, d, filepath.Join(dir, e.File))
		if err != nil {
			return fmt.Errorf("image bundle %s: %s: %w", dir, e.Ref, err)
		}
		log.Info("loaded image", "ref", e.Ref, "file", e.File, "as", name) // as each ends: loads take minutes
		as[i] = name
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	ids, err := loadedIDs(ctx, d, as)
	if err != nil {
		return nil, nil, fmt.Errorf("image bundle %s: %w", dir, err)
	}
	names := make([]string, len(idx.Images))
	unchecked := make([]bool, len(idx.Images))
	err = eachArchive(ctx, len(idx.Images), func(ctx context.Context, i int) error {
		e := idx.Images[i]
		name, err := nameLoaded(ctx, d, e, checks[i], as[i], ids[i])
		if errors.Is(err, errPinUnverified) && opts.AllowUnverifiedPins {
			log.Warn("loaded a digest-pinned image unchecked (--"+AllowUnverifiedPinsFlag+"): "+err.Error(),
				"ref", e.Ref, "file", e.File, "as", name)
			unchecked[i], err = true, nil
		}
		if err != nil {
			return fmt.Errorf("image bundle %s: %s: %w", dir, e.Ref, err)
		}
		if Normalize(name) != Normalize(as[i]) { // tagged, or a digest-pinned ref named by its ID
			log.Info("named loaded image", "ref", e.Ref, "as", name)
		}
		names[i] = name
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	out := Loaded{}
	var unverified []string
	for i, e := range idx.Images {
		out[e.Ref] = names[i]
		if unchecked[i] {
			unverified = append(unverified, e.Ref)
		}
	}
	return out, unverified, nil
}

// loadedIDs returns the image ID of each name docker load gave: an ID as
// it is, the references' from one docker command.
func loadedIDs(ctx context.Context, d Daemon, as []string) ([]string, error) {
	ids := append([]string(nil), as...)
	var refs []string
	var at []int
	for i, a := range as {
		if !strings.HasPrefix(a, "sha256:") {
			refs, at = append(refs, a), append(at, i)
		}
	}
	got, err := d.ImageIDs(ctx, refs...)
	if err != nil {
		return nil, err
	}
	for k, i := range at {
		ids[i] = got[k]
	}
	return ids, nil
}

// loadFile loads one archive and returns what docker load named the image
// it holds: its reference, or its ID for an archive without one.
func loadFile(ctx context.Context, d Daemon, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	names, err := d.Load(ctx, f)
	if err != nil {
		return "", err
	}
	if len(names) != 1 {
		return "", fmt.Errorf("archive %s holds %d images (%s), want one", filepath.Base(path), len(names), strings.Join(names, ", "))
	}
	return names[0], nil
}
