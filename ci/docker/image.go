package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// ImageExists reports whether the daemon has the image locally.
func (c CLI) ImageExists(ctx context.Context, ref string) (bool, error) {
	_, err := c.Run(ctx, "image", "inspect", "--format", "{{.Id}}", ref)
	if IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// ErrNoRegistry means the daemon could not pull an image in time: it has no
// registry access (or a very slow one).
var ErrNoRegistry = errors.New("this machine has no registry access")

// EnsureImage makes sure the daemon has ref: present locally, or pulled
// within timeout. A pull that fails or does not finish in time returns an
// error wrapping ErrNoRegistry that says how to proceed, so a lab never hangs
// on a daemon that cannot reach a registry.
func (c CLI) EnsureImage(ctx context.Context, ref string, timeout time.Duration) error {
	ok, err := c.ImageExists(ctx, ref)
	if err != nil {
		return fmt.Errorf("check image %s: %w", ref, err)
	}
	if ok {
		return nil
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err = c.Run(pctx, "pull", "--quiet", ref)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	why := strings.TrimSpace(lastLine(err.Error()))
	var de *Error
	if errors.As(err, &de) && strings.TrimSpace(de.Stderr) != "" {
		why = strings.TrimSpace(lastLine(de.Stderr))
	}
	if pctx.Err() != nil {
		why = fmt.Sprintf("no answer within %s", timeout)
	}
	return &PullError{Ref: ref, Why: why}
}

// PullError is an image the daemon lacks and could not pull. Its message
// says how a lab proceeds (load the images, or the local environment); a
// caller with other advice (a command that is the local environment) takes
// Why and gives its own.
type PullError struct {
	Ref string
	// Why is the daemon's last word on the pull, or "no answer within …".
	Why string
}

func (e *PullError) Error() string {
	return fmt.Sprintf("cannot pull %s (%s): %v; load the images into the daemon (docker load) or use `labctl testenv up`",
		e.Ref, e.Why, ErrNoRegistry)
}

// Unwrap makes a PullError an ErrNoRegistry.
func (e *PullError) Unwrap() error { return ErrNoRegistry }

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// Import creates an image from a root filesystem tarball (docker import).
func (c CLI) Import(ctx context.Context, tarball io.Reader, ref string, changes ...string) error {
	args := []string{"import"}
	for _, ch := range changes {
		args = append(args, "--change", ch)
	}
	args = append(args, "-", ref)
	if _, err := c.RunIO(ctx, tarball, nil, args...); err != nil {
		return fmt.Errorf("import image %s: %w", ref, err)
	}
	return nil
}

// Save streams an image archive (docker save) to w: on the containerd
// image store only the daemon's own platform (ImageTransfer, imagestore.go).
func (c CLI) Save(ctx context.Context, ref string, w io.Writer) error {
	return c.SaveAll(ctx, []string{ref}, w)
}

// SaveAll streams one archive holding every image of refs to w, as Save
// does one.
func (c CLI) SaveAll(ctx context.Context, refs []string, w io.Writer) error {
	names := strings.Join(refs, " ")
	t, err := c.ImageTransfer(ctx)
	if err != nil {
		return fmt.Errorf("save image %s: %w", names, err)
	}
	if _, err := c.RunIO(ctx, nil, w, t.saveArgs(refs...)...); err != nil {
		return fmt.Errorf("save image %s (%s): %w", names, t.Describe(), err)
	}
	return nil
}

// RemoveImage removes an image; a missing image is not an error.
func (c CLI) RemoveImage(ctx context.Context, ref string) error {
	if _, err := c.Run(ctx, "rmi", "--force", ref); err != nil && !IsNotFound(err) {
		return fmt.Errorf("remove image %s: %w", ref, err)
	}
	return nil
}

// ImageID returns the daemon's ID (sha256:<config digest>) of an image.
func (c CLI) ImageID(ctx context.Context, ref string) (string, error) {
	out, err := c.Run(ctx, "image", "inspect", "--format", "{{.Id}}", ref)
	if err != nil {
		return "", fmt.Errorf("inspect image %s: %w", ref, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// ImageIDs returns the daemon's IDs of refs, in their order, from one
// docker command (docker image inspect takes several references; one
// command per image costs ~0.1 s of processor each, and a bundle has ~17).
// When any is missing the error says so (IsNotFound) and no ID is
// returned: docker prints nothing for a missing image, so the lines left
// could not be matched to their references. Where Save writes one platform
// (the containerd image store), the IDs are that platform's, the IDs the
// saved archives load with (ImageTransfer.imageIDArgs).
func (c CLI) ImageIDs(ctx context.Context, refs ...string) ([]string, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	t, err := c.ImageTransfer(ctx)
	if err != nil {
		return nil, fmt.Errorf("inspect images %s: %w", strings.Join(refs, ", "), err)
	}
	out, err := c.Run(ctx, t.imageIDArgs(refs...)...)
	if err != nil {
		return nil, fmt.Errorf("inspect images %s: %w", strings.Join(refs, ", "), err)
	}
	ids := strings.Fields(string(out))
	if len(ids) != len(refs) {
		return nil, fmt.Errorf("inspect images %s: %d IDs for %d images: %q", strings.Join(refs, ", "), len(ids), len(refs), out)
	}
	return ids, nil
}

// Load reads an image archive (docker save, or an OCI tarball) into the
// daemon (docker load) and returns what the daemon says it loaded: the
// references of "Loaded image: REF" lines and the IDs of "Loaded image ID:
// ID" lines (an archive without a name, as an OCI export can be).
func (c CLI) Load(ctx context.Context, archive io.Reader) ([]string, error) {
	out, err := c.RunIO(ctx, archive, nil, "load")
	if err != nil {
		return nil, fmt.Errorf("load image archive: %w", err)
	}
	return parseLoadOutput(string(out)), nil
}

// parseLoadOutput reads `docker load` output: the daemon's "Loaded image:
// REF" and "Loaded image ID: ID" lines (moby image/tarexport/load.go; the
// daemon test loads a real archive through it).
func parseLoadOutput(out string) []string {
	var loaded []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"Loaded image ID: ", "Loaded image: "} {
			if rest, ok := strings.CutPrefix(l, p); ok {
				loaded = append(loaded, strings.TrimSpace(rest))
				break
			}
		}
	}
	return loaded
}

// Tag gives the image src the name dst (docker tag).
func (c CLI) Tag(ctx context.Context, src, dst string) error {
	if _, err := c.Run(ctx, "tag", src, dst); err != nil {
		return fmt.Errorf("tag image %s as %s: %w", src, dst, err)
	}
	return nil
}
