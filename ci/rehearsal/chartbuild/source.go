package chartbuild

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/rehearsal/imagebuild"
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

// Dir is the git directory of repo, or an error naming the flag to pass.
func (s Snapshots) Dir(repo string) (string, error) {
	if d, ok := s[repo]; ok {
		return d, nil
	}
	return "", fmt.Errorf("no git directory of %s: pass --git-dir %s=DIR (a clone or snapshot holding its tags)", repo, repo)
}

// Missing lists the repositories of repos that s has no directory for.
func (s Snapshots) Missing(repos []string) []string {
	var out []string
	for _, r := range repos {
		if _, ok := s[r]; !ok {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out
}

// git runs git against a git directory and returns its standard output.
func git(ctx context.Context, gitDir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir", gitDir}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git --git-dir %s %s: %w: %s", gitDir, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// Commit resolves ref (a tag or commit) to its commit and committer time.
func Commit(ctx context.Context, gitDir, ref string) (string, time.Time, error) {
	out, err := git(ctx, gitDir, "log", "-1", "--format=%H %cI", ref+"^{commit}", "--")
	if err != nil {
		return "", time.Time{}, fmt.Errorf("%s in %s: %w (is the snapshot fetched with its tags?)", ref, gitDir, err)
	}
	sha, when, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	t, err := time.Parse(time.RFC3339, when)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("%s in %s: commit time %q: %w", ref, gitDir, when, err)
	}
	return sha, t, nil
}

// Extract writes the tree of ref under paths into dst, as `git archive
// REF PATHS | tar -x -C DST` does: the files keep their paths relative to
// the repository's root.
func Extract(ctx context.Context, gitDir, ref, dst string, paths ...string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	archive := exec.CommandContext(ctx, "git", append([]string{"--git-dir", gitDir, "archive", "--format=tar", ref, "--"}, paths...)...)
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", dst)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	var aerr, terr bytes.Buffer
	archive.Stderr, untar.Stdin, untar.Stderr = &aerr, pipe, &terr
	if err := archive.Start(); err != nil {
		return fmt.Errorf("git archive %s: %w", ref, err)
	}
	uerr := untar.Run()
	if err := archive.Wait(); err != nil {
		return fmt.Errorf("git --git-dir %s archive %s %s: %w: %s", gitDir, ref, strings.Join(paths, " "), err, strings.TrimSpace(aerr.String()))
	}
	if uerr != nil {
		return fmt.Errorf("unpack %s of %s into %s: %w: %s", ref, gitDir, dst, uerr, strings.TrimSpace(terr.String()))
	}
	return nil
}

// Show returns one file of ref.
func Show(ctx context.Context, gitDir, ref, path string) ([]byte, error) {
	return git(ctx, gitDir, "show", ref+":"+path)
}

// Tags lists the tags of a git directory.
func Tags(ctx context.Context, gitDir string) ([]string, error) {
	out, err := git(ctx, gitDir, "tag", "--list")
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}
