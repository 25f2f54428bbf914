package images

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"

	"github.com/distribution/reference"
)

// AllowUnverifiedPinsFlag is the `labctl up` flag that loads a
// digest-pinned image nothing ties to its pin (LoadOptions).
const AllowUnverifiedPinsFlag = "allow-unverified-pins"

// A digest-pinned reference (the kind node image,
// kindest/node:v1.36.4@sha256:…) names one image; a bundle maps it to
// whatever archive its index names. What can tie the archive to the pin:
//
//   - the daemon, asked for the pinned reference after the load: Docker
//     with the containerd image store resolves name@digest to the image
//     whose target — the manifest or index the archive carried — has that
//     digest (moby docker-v29.1.0 daemon/containerd/image.go:138-163
//     resolveImage; RepoDigests is name@target, image_inspect.go:163-172);
//     a classic store resolves it only for an image pulled by that digest,
//     as a loaded archive records none (moby v20.10.24
//     image/tarexport/tarexport.go:18-24 manifestItem has no digest,
//     load.go:131-141 only tags). Knowing it as another image refuses the
//     archive;
//   - the archive itself, when it holds the pinned manifest or index and
//     that leads to its image (archive.go, checked against the bytes): a
//     containerd store's docker save without --platform keeps the pulled
//     index (moby docker-v29.7.2 daemon/containerd/image_exporter.go:73-82);
//   - the index: an entry that records the image (ID, Config or Manifest)
//     matched by the archive. `labctl images save` records the ID the
//     daemon resolved the pinned reference to, the Dagger module the
//     digests of the tarball its engine exported from Container.From of
//     the pinned reference — each resolved the pin by its digest. (The
//     rehearsal points a pin at a node image it built itself, recording
//     the build's ID — ci/hack/rehearsal/imagebuild LocalTag, BundleEntries —
//     and relies on this too: the index is the writer's word.) Dagger's
//     export carries its own manifest, not the registry's (dagger
//     v0.21.8 engine/engineutil/containerimage.go:46-61 builds a new config
//     and :137 exports the manifest it commits), so only the index can
//     tie it.
//
// Nothing of these: refused before anything is loaded, unless the user
// passes AllowUnverifiedPinsFlag.

// errPinUnverified: nothing ties a digest-pinned archive to its pin.
var errPinUnverified = errors.New("cannot check the archive against its pin")

// archiveCheck is what Load learnt of an archive before loading it.
type archiveCheck struct {
	image   *ArchiveImage // nil: not an archive it could read (unread says why)
	unread  error
	pin     string // the digest a pinned reference names, "" unpinned
	daemon  bool   // the daemon knew the pinned reference before the load
	archive bool   // the archive holds the pinned manifest or index
}

// pinOf returns the digest ref is pinned to, or "".
func pinOf(ref string) string {
	if n, err := reference.ParseNormalizedNamed(ref); err == nil {
		if d, ok := n.(reference.Digested); ok {
			return d.Digest().String()
		}
	}
	return ""
}

// recorded is what the index says of the image of e.
func (e Entry) recorded() []string {
	var out []string
	for _, v := range []string{e.ID, e.Config, e.Manifest} {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// checkArchives reads each archive of idx and refuses, before anything is
// loaded, one that is not the image its entry records, is damaged, or is
// pinned with nothing to tie it to the pin (unless opts allow).
func checkArchives(ctx context.Context, d Daemon, dir string, idx Index, opts LoadOptions, log *slog.Logger) ([]archiveCheck, error) {
	checks := make([]archiveCheck, len(idx.Images))
	for i, e := range idx.Images {
		c := archiveCheck{pin: pinOf(e.Ref)}
		a, err := ReadArchive(filepath.Join(dir, e.File))
		switch {
		case errors.Is(err, errNotImageArchive):
			c.unread = err // docker load judges it
		case err != nil:
			return nil, fmt.Errorf("image bundle %s: %s: archive %s: %w (re-create the bundle)", dir, e.Ref, e.File, err)
		default:
			c.image = &a
			for _, r := range e.recorded() {
				if !a.Holds(r) {
					return nil, fmt.Errorf("image bundle %s: %s: archive %s holds the image of %s, "+
						"the index says %s (re-create the bundle)", dir, e.Ref, e.File, a.Describe(), r)
				}
			}
			c.archive = c.pin != "" && slices.Contains(a.Digests, c.pin)
		}
		if c.pin != "" && !c.archive && len(e.recorded()) == 0 {
			if known, err := d.ImageIDs(ctx, e.Ref); err == nil && len(known) == 1 {
				c.daemon = true // compared with the loaded image after the load
			} else if !opts.AllowUnverifiedPins {
				return nil, fmt.Errorf("image bundle %s: %s: %w (refused before loading anything)", dir, e.Ref, unverifiedPin(e, c))
			}
		}
		if c.pin != "" {
			log.Debug("pinned archive", "ref", e.Ref, "file", e.File, "in archive", c.archive, "recorded", e.recorded(), "daemon", c.daemon)
		}
		checks[i] = c
	}
	return checks, nil
}

// unverifiedPin says what was found for a pinned entry nothing ties to
// its pin, and the ways out.
func unverifiedPin(e Entry, c archiveCheck) error {
	found := "the archive could not be read as an image archive (" + fmt.Sprint(c.unread) + ")"
	if c.image != nil {
		found = "the archive holds the image of " + c.image.Describe() + ", and no manifest or index of digest " + c.pin
	}
	return fmt.Errorf("%w: %s is pinned to %s, but %s; the daemon does not know the pinned reference; the index "+
		"records no image ID, config or manifest for it. Re-create the bundle with `labctl images save DIR` (records each "+
		"image's ID and digests) or the Dagger module (records its tarballs' digests), or pass --%s to load it unchecked",
		errPinUnverified, e.Ref, c.pin, found, AllowUnverifiedPinsFlag)
}

// nameLoaded checks that the daemon loaded the image the archive check
// verified (its config or one of its manifests: whatever else the daemon
// read, the check did not vouch for it), or where the archive could not
// be read before, the image its entry records; ties a digest-pinned image
// to its pin (checkPin); and returns the name the image has now: its ID
// for a digest-pinned reference, else e.Ref, tagged unless the archive
// already gave it that name. A refused image stays on the daemon under
// its ID (or a name the archive gave it), never under e.Ref.
func nameLoaded(ctx context.Context, d Daemon, e Entry, c archiveCheck, as, id string) (string, error) {
	if c.image != nil && !c.image.Holds(id) {
		return "", fmt.Errorf("archive %s loaded as image %s, but the archive check read the image of %s: the daemon "+
			"read other entries than the check (an altered archive), or made its own manifest for a docker save archive "+
			"(a containerd image store loading an archive without index.json, which the check cannot tie to the config); "+
			"re-create the bundle with `labctl images save` on a daemon of the same image store",
			e.File, id, c.image.Describe())
	}
	if rec := e.recorded(); c.image == nil && len(rec) > 0 && !slices.Contains(rec, id) {
		return "", fmt.Errorf("archive %s holds image %s, the index says %s (re-create the bundle)", e.File, id, strings.Join(rec, ", "))
	}
	if c.pin != "" {
		return id, checkPin(ctx, d, e, c, id)
	}
	if !strings.HasPrefix(as, "sha256:") && Normalize(as) == Normalize(e.Ref) {
		return e.Ref, nil
	}
	if err := d.Tag(ctx, id, e.Ref); err != nil {
		return "", err
	}
	return e.Ref, nil
}

// checkPin ties the loaded image id of a digest-pinned entry to its pin:
// the daemon first (knowing the pin as another image refuses whatever
// else ties it), then the archive, then the index (see above).
func checkPin(ctx context.Context, d Daemon, e Entry, c archiveCheck, id string) error {
	if known, err := d.ImageIDs(ctx, e.Ref); err == nil && len(known) == 1 {
		if known[0] != id {
			return fmt.Errorf("archive %s holds image %s, but the daemon has %s as image %s: "+
				"the archive is not the pinned image (re-create the bundle)", e.File, id, e.Ref, known[0])
		}
		return nil
	}
	if c.archive || len(e.recorded()) > 0 {
		return nil
	}
	return unverifiedPin(e, c)
}

// RecordArchives sets each entry's Config and Manifest from its archive
// in dir (ReadArchive): for a bundle whose archives another tool fetched
// by the index's references (the Dagger module). An archive that cannot
// be read is an error.
func RecordArchives(dir string, idx Index) (Index, error) {
	out := idx
	out.Images = slices.Clone(idx.Images)
	for i := range out.Images {
		if err := recordArchive(dir, &out.Images[i], true); err != nil {
			return Index{}, fmt.Errorf("image bundle %s: %s: %w", dir, out.Images[i].Ref, err)
		}
	}
	return out, nil
}

// recordArchive sets e's Config and Manifest from its archive. Unless
// strict, a file that is no image archive at all records nothing (docker
// load judges it).
func recordArchive(dir string, e *Entry, strict bool) error {
	a, err := ReadArchive(filepath.Join(dir, e.File))
	if errors.Is(err, errNotImageArchive) && !strict {
		return nil
	}
	if err != nil {
		return fmt.Errorf("archive %s: %w", e.File, err)
	}
	if e.ID != "" && !a.Holds(e.ID) {
		return fmt.Errorf("archive %s holds the image of %s, not image %s the daemon saved", e.File, a.Describe(), e.ID)
	}
	e.Config, e.Manifest = a.Config, a.Manifest
	return nil
}
