package chartbuild

import (
	"context"
	"fmt"
	"sort"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gitsnap"
)

// Snapshots maps an upstream repository ("owner/name", as GitHub spells
// it) to a git directory holding its history (a bare clone or a fetched
// snapshot): the charts' sources are read from there, never from a
// network.
type Snapshots map[string]string

// ParseGitDirs reads repeated OWNER/NAME=DIR flags, as `rehearse images`
// reads the same flag (imagebuild.ParseGitDirs).
func ParseGitDirs(flags []string) (Snapshots, error) {
	s, err := imagebuild.ParseGitDirs(flags)
	return Snapshots(s), err
}

// dir is the git directory of repo, or an error naming the flag to pass.
func (s Snapshots) dir(repo string) (string, error) {
	if d, ok := s[repo]; ok {
		return d, nil
	}
	return "", fmt.Errorf("no git directory of %s: pass --git-dir %s=DIR (a clone or snapshot holding its tags)", repo, repo)
}

// missing lists the repositories of repos that s has no directory for.
func (s Snapshots) missing(repos []string) []string {
	var out []string
	for _, r := range repos {
		if _, ok := s[r]; !ok {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out
}

// check opens the git directory of snap's repository and checks that it
// holds the pinned commit, its tag naming it (imagebuild.CheckSnapshot).
func (s Snapshots) check(ctx context.Context, snap imagebuild.Snapshot) (gitsnap.Repo, error) {
	dir, err := s.dir(snap.Repo)
	if err != nil {
		return gitsnap.Repo{}, err
	}
	r, err := imagebuild.CheckSnapshot(ctx, dir, snap)
	if err != nil {
		return gitsnap.Repo{}, fmt.Errorf("%w (--git-dir %s=%s)", err, snap.Repo, dir)
	}
	return r, nil
}
