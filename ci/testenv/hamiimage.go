package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/distribution/reference"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

// hamiImageScheduler is where HAMi's images hold the scheduler binary:
// docker/Dockerfile@v2.10.0 copies the Go build's /k8s-vgpu/bin into the
// image, and the chart runs `scheduler` from it (PATH has /k8s-vgpu/bin).
const hamiImageScheduler = "/k8s-vgpu/bin/scheduler"

// imagePullTimeout bounds pulling an image that the daemon lacks.
const imagePullTimeout = 5 * time.Minute

// hamiImageBinary is HAMi's scheduler taken out of an image.
type hamiImageBinary struct {
	// Path is the binary in the cache.
	Path string
	// Image is the reference asked for; ID the image's ID (sha256:…), which
	// keys the cache; RepoDigest the registry digest (repo@sha256:…) of a
	// pulled image, empty for one that was built or imported locally.
	Image, ID, RepoDigest string
	// Cached: the binary was in the cache already; no container was created.
	Cached bool
	// Version is what the binary says it is (`scheduler version`); zero
	// when not asked or not answered.
	Version hamiVersion
}

// name is how reports name what ran: "HAMi scheduler v2.10.0 from
// projecthami/hami:v2.10.0@sha256:…", or, for an image without a registry
// digest, with its ID. The version is the one the binary reports, else the
// image's tag (a tag is a name, the binary's stamp is what was built).
func (b hamiImageBinary) name() string {
	version := b.Version.label()
	if version == "" {
		version = imageTag(b.Image)
	}
	if version != "" {
		version += " "
	}
	if b.RepoDigest != "" {
		_, digest, _ := strings.Cut(b.RepoDigest, "@")
		return fmt.Sprintf("HAMi scheduler %sfrom %s@%s", version, withoutDigest(b.Image), digest)
	}
	return fmt.Sprintf("HAMi scheduler %sfrom %s (image %s, no registry digest)", version, b.Image, b.ID)
}

// imageTag is the tag of a reference ("" without one, or for a string
// that is no reference).
func imageTag(ref string) string {
	n, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return ""
	}
	if t, ok := n.(reference.Tagged); ok {
		return t.Tag()
	}
	return ""
}

// withoutDigest is ref as reports show it: familiar, without the digest.
func withoutDigest(ref string) string {
	n, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return ref
	}
	out := reference.TrimNamed(n)
	if t, ok := n.(reference.Tagged); ok {
		if tagged, err := reference.WithTag(out, t.Tag()); err == nil {
			return reference.FamiliarString(tagged)
		}
	}
	return reference.FamiliarString(out)
}

// extractHAMiScheduler copies HAMiImageScheduler out of image into the
// cache under root (empty: the binary cache, bincache.Root), keyed by the
// image's ID: `docker create` (the container is never started) and `docker
// cp`, then the container is removed. An image the daemon lacks is pulled
// first. A binary already cached for that ID is returned without touching
// a container.
func extractHAMiScheduler(ctx context.Context, c docker.CLI, image, root string, log *slog.Logger) (hamiImageBinary, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	out := hamiImageBinary{Image: image}
	if err := c.EnsureImage(ctx, image, imagePullTimeout); err != nil {
		// The pull error's own advice names `labctl testenv up`, the command
		// that is running: only its reason is kept.
		if pe := (*docker.PullError)(nil); errors.As(err, &pe) {
			return out, fmt.Errorf("--hami-image %s: the Docker daemon lacks it and cannot pull it (%s: %w); load it into the daemon first "+
				"(docker load), or pass HAMi's scheduler binary itself with --hami-binary", image, pe.Why, docker.ErrNoRegistry)
		}
		return out, fmt.Errorf("HAMi image %s: %w", image, err)
	}
	raw, err := c.Run(ctx, "image", "inspect", "--format", "{{json .Id}} {{json .RepoDigests}}", image)
	if err != nil {
		return out, fmt.Errorf("inspect HAMi image %s: %w", image, err)
	}
	if out.ID, out.RepoDigest, err = parseImageIdentity(raw, image); err != nil {
		return out, err
	}
	if root == "" {
		if root, err = bincache.Root(); err != nil {
			return out, err
		}
	}
	dir := filepath.Join(root, "hami-"+strings.TrimPrefix(out.ID, "sha256:"))
	out.Path = filepath.Join(dir, "scheduler")
	if _, err := os.Stat(out.Path); err == nil {
		out.Cached = true
		return out, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return out, fmt.Errorf("binary cache %s: %w", root, err)
	}
	partial := dir + ".partial-" + randomSuffix()
	if err := os.MkdirAll(partial, 0o755); err != nil {
		return out, err
	}
	defer os.RemoveAll(partial)
	name := "gpu-lab-hami-extract-" + randomSuffix()
	// A command is given so images without one (imported) can be created;
	// the container is never started.
	if _, err := c.Run(ctx, "create", "--name", name, image, hamiImageScheduler); err != nil {
		return out, fmt.Errorf("create a container of HAMi image %s to copy %s: %w", image, hamiImageScheduler, err)
	}
	defer func() { _ = c.RemoveContainer(context.Background(), name) }()
	if _, err := c.Run(ctx, "cp", name+":"+hamiImageScheduler, filepath.Join(partial, "scheduler")); err != nil {
		return out, fmt.Errorf("copy %s out of HAMi image %s: %w", hamiImageScheduler, image, err)
	}
	if err := os.Chmod(filepath.Join(partial, "scheduler"), 0o755); err != nil {
		return out, err
	}
	if err := os.Rename(partial, dir); err != nil && !os.IsExist(err) {
		if _, statErr := os.Stat(out.Path); statErr != nil { // not another process's copy
			return out, fmt.Errorf("HAMi binary cache %s: %w", dir, err)
		}
	}
	log.Info("took HAMi's scheduler out of its image", "image", image, "id", out.ID, "binary", out.Path)
	return out, nil
}

// parseImageIdentity reads `docker image inspect --format '{{json .Id}}
// {{json .RepoDigests}}'`: the ID, and the registry digest of the image's
// repository when it has one.
func parseImageIdentity(raw []byte, image string) (id, repoDigest string, err error) {
	idJSON, digestsJSON, ok := strings.Cut(strings.TrimSpace(string(raw)), " ")
	var digests []string
	if !ok || json.Unmarshal([]byte(idJSON), &id) != nil || json.Unmarshal([]byte(digestsJSON), &digests) != nil ||
		!strings.HasPrefix(id, "sha256:") {
		return "", "", fmt.Errorf("inspect HAMi image %s: unexpected answer %q", image, raw)
	}
	// Docker lists RepoDigests familiar ("busybox@sha256:…"); both sides
	// are normalized, so docker.io/library/busybox meets busybox and
	// hami does not meet projecthami/hami.
	want, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return id, "", nil // an image named by its ID has no repository
	}
	for _, d := range digests {
		if n, err := reference.ParseNormalizedNamed(d); err == nil && n.Name() == want.Name() {
			return id, d, nil
		}
	}
	return id, "", nil
}

func randomSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
