// Package rootfs makes Debian root file systems with debootstrap (Debian's
// packages are reachable where no image registry is) and imports them into
// Docker as base images. The .debs are kept in the cache, so a second
// debootstrap of the same set needs no network.
package rootfs

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/cache"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/progress"
	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

// Spec is one root file system.
type Spec struct {
	// Name names the cache entry and the base image ("node", "iptables").
	Name    string
	Suite   string // "bookworm"
	Variant string // debootstrap --variant ("minbase")
	Include []string
	Mirror  string
}

// defaultMirror is Debian's own archive, as this machine's apt uses it.
const defaultMirror = "http://deb.debian.org/debian"

// args are debootstrap's arguments to make s in target, keeping the
// downloaded packages in debs.
func (s Spec) args(debs, target string) []string {
	args := []string{"--variant=" + s.Variant, "--cache-dir=" + debs}
	if len(s.Include) > 0 {
		args = append(args, "--include="+strings.Join(s.Include, ","))
	}
	mirror := s.Mirror
	if mirror == "" {
		mirror = defaultMirror
	}
	return append(args, s.Suite, target, mirror)
}

// Key decides the cache entry and the base image's tag.
func (s Spec) Key() string {
	return cache.Key(append([]string{s.Name, s.Suite, s.Variant, s.Mirror}, s.Include...)...)
}

// ImageRef is the base image's name on the daemon.
func (s Spec) ImageRef() string { return "gpu-lab-rehearsal/rootfs-" + s.Name + ":" + s.Key() }

// Make returns the root file system's directory, running debootstrap the
// first time (minutes; it needs root). root is the rehearsal cache.
func Make(ctx context.Context, log *slog.Logger, root string, s Spec) (string, error) {
	dir := filepath.Join(root, "rootfs", s.Name+"-"+s.Key())
	fs := filepath.Join(dir, "fs")
	if cache.Done(dir) {
		return fs, nil
	}
	debs := filepath.Join(root, "debs")
	if err := os.MkdirAll(debs, 0o755); err != nil {
		return "", fmt.Errorf("rootfs %s: %w", s.Name, err)
	}
	start := time.Now()
	err := cache.Fill(ctx, log, "root file system "+s.Name, dir, func(partial, logPath string) error {
		logf, err := os.Create(logPath)
		if err != nil {
			return err
		}
		defer logf.Close()
		args := s.args(debs, filepath.Join(partial, "fs"))
		fmt.Fprintf(logf, "# debootstrap %s\n", strings.Join(args, " "))
		log.Info("making Debian root file system with debootstrap (minutes)", "rootfs", s.Name, "suite", s.Suite, "log", logPath)
		stop := progress.Speak(ctx, log, "root file system "+s.Name, logPath)
		cmd := exec.CommandContext(ctx, "debootstrap", args...)
		cmd.Stdout, cmd.Stderr = logf, logf
		err = cmd.Run()
		stop()
		if err != nil {
			return fmt.Errorf("rootfs %s: debootstrap: %w (is debootstrap installed, and is this root?); %s ends with:\n%s", s.Name, err, logPath,
				bincache.TailFile(logPath, 20))
		}
		// debootstrap's apt lists and .deb copies are not part of an image.
		for _, d := range []string{"var/lib/apt/lists", "var/cache/apt/archives"} {
			_ = cleanDir(filepath.Join(partial, "fs", d))
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	log.Info("made root file system", "rootfs", s.Name, "dir", fs, "took", time.Since(start).Round(time.Second).String())
	return fs, nil
}

// cleanDir removes what dir holds but keeps dir (and its lock or partial
// sub-directories apt expects).
func cleanDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// Import makes the root file system in fs a base image on the daemon
// (tar | docker import), unless the daemon has it already; the image is
// labelled with s's key.
func Import(ctx context.Context, d imagespec.Docker, log *slog.Logger, s Spec, fs string) (string, error) {
	ref := s.ImageRef()
	if imagespec.Built(ctx, d, ref, s.Key()) {
		return ref, nil
	}
	start := time.Now()
	tar := exec.CommandContext(ctx, "tar", "--numeric-owner", "--xattrs", "-C", fs, "-c", ".")
	out, err := tar.StdoutPipe()
	if err != nil {
		return "", err
	}
	var tarErr strings.Builder
	tar.Stderr = &tarErr
	if err := tar.Start(); err != nil {
		return "", fmt.Errorf("rootfs %s: tar: %w", s.Name, err)
	}
	_, ierr := d.RunIO(ctx, out, nil, "import", "--change", "LABEL "+imagespec.KeyLabel+"="+s.Key(), "-", ref)
	werr := tar.Wait()
	if ierr != nil {
		return "", fmt.Errorf("rootfs %s: docker import %s: %w", s.Name, ref, ierr)
	}
	if werr != nil {
		return "", fmt.Errorf("rootfs %s: tar of %s: %w: %s", s.Name, fs, werr, tarErr.String())
	}
	log.Info("imported root file system", "rootfs", s.Name, "image", ref, "took", time.Since(start).Round(time.Second).String())
	return ref, nil
}
