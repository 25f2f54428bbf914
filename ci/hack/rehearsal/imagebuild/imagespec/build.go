package imagespec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/cache"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/progress"
)

// Key is the spec's cache key: its Dockerfile without the key, every
// file's destination, mode and content hash, and the base image's ID
// (baseID; "" for scratch).
func (s Spec) Key(baseID string) (string, error) {
	parts := []string{s.Dockerfile(""), s.Ref, baseID}
	for _, f := range s.Files {
		sum, err := f.sum()
		if err != nil {
			return "", fmt.Errorf("image %s: %w", s.Ref, err)
		}
		parts = append(parts, f.Dest, strconv.FormatUint(uint64(f.Mode), 8), sum)
	}
	return cache.Key(parts...), nil
}

func (f File) sum() (string, error) {
	h := sha256.New()
	if f.Src == "" {
		h.Write(f.Data)
	} else {
		r, err := os.Open(f.Src)
		if err != nil {
			return "", err
		}
		defer r.Close()
		if _, err := io.Copy(h, r); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Docker is what a build needs of the daemon (docker.CLI).
type Docker interface {
	Run(ctx context.Context, args ...string) ([]byte, error)
	RunIO(ctx context.Context, in io.Reader, out io.Writer, args ...string) ([]byte, error)
	ImageID(ctx context.Context, ref string) (string, error)
}

// Built reports whether the daemon has ref built with key.
func Built(ctx context.Context, d Docker, ref, key string) bool {
	out, err := d.Run(ctx, "image", "inspect", "--format", "{{index .Config.Labels \""+KeyLabel+"\"}}", ref)
	return err == nil && strings.TrimSpace(string(out)) == key
}

// Build builds s on d unless d has it with the same key already, and
// returns its image ID. workDir holds the build context (removed after a
// successful build, kept for a failed build's reader); the build's output
// goes to logPath.
func Build(ctx context.Context, d Docker, log *slog.Logger, s Spec, workDir, logPath string) (string, error) {
	baseID := ""
	if s.Base != "scratch" {
		id, err := d.ImageID(ctx, s.Base)
		if err != nil {
			return "", fmt.Errorf("image %s: its base %s is not on the daemon (build it first): %w", s.Ref, s.Base, err)
		}
		baseID = id
	}
	key, err := s.Key(baseID)
	if err != nil {
		return "", err
	}
	if Built(ctx, d, s.Ref, key) {
		log.Info("reusing image", "ref", s.Ref, "key", key)
		return d.ImageID(ctx, s.Ref)
	}
	start := time.Now()
	if err := writeContext(workDir, s, key); err != nil {
		return "", fmt.Errorf("image %s: build context %s: %w", s.Ref, workDir, err)
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return "", fmt.Errorf("image %s: %w", s.Ref, err)
	}
	defer logf.Close()
	fmt.Fprintf(logf, "# docker build -t %s %s\n", s.Ref, workDir)
	stop := progress.Speak(ctx, log, "image "+s.Ref, logPath)
	_, err = d.RunIO(ctx, nil, logf, "build", "--network", "none", "-t", s.Ref, workDir)
	stop()
	if err != nil {
		return "", fmt.Errorf("image %s could not be built: %w (log %s, build context %s)", s.Ref, err, logPath, workDir)
	}
	log.Info("built image", "ref", s.Ref, "took", time.Since(start).Round(time.Second).String())
	// The context copies every file (hundreds of MB for a node image); it
	// is kept only when the build failed.
	_ = os.RemoveAll(workDir)
	return d.ImageID(ctx, s.Ref)
}

func writeContext(dir string, s Spec, key string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	files := filepath.Join(dir, "files")
	if err := os.MkdirAll(files, 0o755); err != nil {
		return err
	}
	for i, f := range s.Files {
		dst := filepath.Join(files, strconv.Itoa(i))
		if err := f.write(dst); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(s.Dockerfile(key)), 0o644)
}

func (f File) write(dst string) error {
	mode := f.Mode
	if mode == 0 {
		mode = 0o644
	}
	if f.Src == "" {
		if err := os.WriteFile(dst, f.Data, mode); err != nil {
			return err
		}
		return os.Chmod(dst, mode)
	}
	in, err := os.Open(f.Src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, mode)
}

var _ Docker = docker.CLI{}
