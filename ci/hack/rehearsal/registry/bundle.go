package registry

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/images"
)

// Pushed is one image put into the registry.
type Pushed struct {
	// Ref is the image as the lab or the module names it; Mirror the name
	// the registry serves it under (mirrorRef of the registry's address as
	// the engine reaches it).
	Ref, Mirror string
	// Digest is the manifest digest the registry serves. For a
	// digest-pinned Ref it differs from the pin unless the archive held
	// the published manifest: a pull by the pin then fails, and the pin
	// must name Digest (an adaptation).
	Digest string
}

// PinMatches reports whether a digest-pinned Ref's pin is what the
// registry serves (true for a Ref without a pin).
func (p Pushed) PinMatches() bool {
	_, pin, ok := strings.Cut(p.Ref, "@")
	return !ok || pin == p.Digest
}

// PushBundle pushes every image of a bundle (the directory `labctl images
// save` or `rehearse images` writes, with its index.json) under
// the names mirrorRef gives for addr, the registry's address as the
// engine reaches it.
func PushBundle(ctx context.Context, log *slog.Logger, p Pusher, dir, addr string) ([]Pushed, error) {
	idx, err := images.ReadIndex(dir)
	if err != nil {
		return nil, err
	}
	var out []Pushed
	for _, e := range idx.Images {
		got, err := PushArchive(ctx, log, p, filepath.Join(dir, e.File), e.Ref, addr)
		if err != nil {
			return out, err
		}
		out = append(out, got)
	}
	return out, nil
}

// PushArchive pushes one image archive as ref's mirror for addr.
func PushArchive(ctx context.Context, log *slog.Logger, p Pusher, file, ref, addr string) (Pushed, error) {
	mirror, err := mirrorRef(addr, ref)
	if err != nil {
		return Pushed{}, err
	}
	name := strings.TrimPrefix(mirror, addr+"/")
	repo, tag, ok := strings.Cut(name, "@")
	if !ok {
		i := strings.LastIndex(name, ":")
		repo, tag = name[:i], name[i+1:]
	}
	dg, err := p.push(ctx, file, repo, tag)
	if err != nil {
		return Pushed{}, fmt.Errorf("pushing %s (%s) as %s: %w", ref, file, mirror, err)
	}
	log.Info("pushed", "ref", ref, "as", mirror, "digest", dg)
	return Pushed{Ref: ref, Mirror: mirror, Digest: dg}, nil
}
