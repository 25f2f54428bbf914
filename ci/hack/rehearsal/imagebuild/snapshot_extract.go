package imagebuild

import (
	"context"
	"errors"
	"fmt"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gitsnap"
)

// CheckSnapshot opens gitDir and checks that it holds s: the pinned commit
// and, for a tagged snapshot, the tag naming it.
func CheckSnapshot(ctx context.Context, gitDir string, s Snapshot) (gitsnap.Repo, error) {
	r, err := gitsnap.Open(gitDir)
	if err != nil {
		return gitsnap.Repo{}, fmt.Errorf("%s %s: %w", s.Repo, s.rev(), err)
	}
	if err := r.Check(ctx, s.pin()); err != nil {
		if errors.Is(err, gitsnap.ErrMoved) {
			return gitsnap.Repo{}, fmt.Errorf("%w (the pins are in ci/hack/rehearsal/imagebuild/programs_snapshot.go)", err)
		}
		return gitsnap.Repo{}, err
	}
	return r, nil
}

// ExtractSnapshot writes the tree of s's pinned commit (only paths, when
// given) from gitDir into dst, after CheckSnapshot. Every snapshot the
// rehearsal builds from — images and charts — is extracted here, and
// nothing of the git directory's own (config, attributes, hooks) runs: the
// gitsnap package doc says how, and what is still trusted.
func ExtractSnapshot(ctx context.Context, gitDir string, s Snapshot, dst string, paths ...string) error {
	r, err := CheckSnapshot(ctx, gitDir, s)
	if err != nil {
		return err
	}
	if err := r.Extract(ctx, s.Commit, dst, paths...); err != nil {
		return fmt.Errorf("%s %s: %w", s.Repo, s.rev(), err)
	}
	return nil
}
