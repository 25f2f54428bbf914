package gitsnap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
)

// Repo is a git directory read as untrusted data (the package doc says
// how).
type Repo struct {
	// Dir is the git directory (a bare clone, a fetched snapshot, or a
	// work tree's .git).
	Dir string
}

// Open checks that dir is a directory and returns it as a Repo.
func Open(dir string) (Repo, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return Repo{}, fmt.Errorf("git directory %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return Repo{}, fmt.Errorf("git directory %s is not a directory", dir)
	}
	return Repo{Dir: dir}, nil
}

// Pin is an upstream repository at a tag and the commit the tag must name;
// without a tag the commit alone is the pin.
type Pin struct {
	// Repo is the GitHub owner/name, for messages.
	Repo        string
	Tag, Commit string
}

// Rev is what the pin is called in messages: its tag, else its commit.
func (p Pin) Rev() string {
	if p.Tag != "" {
		return p.Tag
	}
	return short(p.Commit)
}

// ErrMoved is wrapped by Check's error when the tag names another commit.
var ErrMoved = errors.New("the tag moved upstream")

// Check fails unless r holds the pinned commit and, with a tag, the tag
// names it.
func (r Repo) Check(ctx context.Context, p Pin) error {
	if !oidRe.MatchString(p.Commit) {
		return fmt.Errorf("pin of %s %s: commit %q is not a full object name", p.Repo, p.Rev(), p.Commit)
	}
	rev := p.Commit
	if p.Tag != "" {
		rev = "refs/tags/" + p.Tag
	}
	got, err := r.Resolve(ctx, rev)
	if err != nil {
		return fmt.Errorf("git directory %s has no %s of github.com/%s (%w): fetch a snapshot of the repository that holds it", r.Dir, p.Rev(),
			p.Repo, err)
	}
	if got != p.Commit {
		return fmt.Errorf("tag %s of %s names commit %s in %s, not the pinned %s: %w; check the new commit and update the pin", p.Tag, p.Repo,
			got, r.Dir, p.Commit, ErrMoved)
	}
	return nil
}

// Resolve is the commit rev (a tag, ref or commit) names.
func (r Repo) Resolve(ctx context.Context, rev string) (string, error) {
	out, err := r.git(ctx, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%s is not a commit there: %w", rev, err)
	}
	sha := strings.TrimSpace(string(out))
	if !oidRe.MatchString(sha) {
		return "", fmt.Errorf("git rev-parse %s in %s said %q", rev, r.Dir, sha)
	}
	return sha, nil
}

// Tags lists the repository's tags.
func (r Repo) Tags(ctx context.Context) ([]string, error) {
	out, err := r.git(ctx, nil, "for-each-ref", "--format=%(refname:strip=2)", "refs/tags/")
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

var oidRe = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

func short(oid string) string {
	if len(oid) > 12 {
		return oid[:12]
	}
	return oid
}

// command is git reading r with the neutralised environment the package
// doc describes.
func (r Repo) command(ctx context.Context, args ...string) *exec.Cmd {
	base := []string{
		"--no-pager", "--no-replace-objects",
		"-c", "core.attributesFile=/dev/null",
		"-c", "core.fsmonitor=false",
		"-c", "core.hooksPath=/dev/null",
		"-c", "protocol.allow=never",
		"--git-dir", r.Dir,
	}
	cmd := exec.CommandContext(ctx, "git", append(base, args...)...)
	cmd.Env = env(os.Environ())
	return cmd
}

// env is environ without any GIT_* variable and with the ones that keep
// git from reading system or global configuration, attributes and replace
// objects, from prompting, paging, and from using any transport.
func env(environ []string) []string {
	var env []string
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "PAGER=") {
			env = append(env, kv)
		}
	}
	return append(env,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_ATTR_NOSYSTEM=1",
		"GIT_NO_REPLACE_OBJECTS=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=0",
		// no protocol is called "none": every transport is refused
		"GIT_ALLOW_PROTOCOL=none",
		"GIT_PAGER=cat", "PAGER=cat",
	)
}

// git runs one command and returns its standard output.
func (r Repo) git(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := r.command(ctx, args...)
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git --git-dir %s %s: %w: %s", r.Dir, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}
