// Package gitsnaptest makes git directories for the tests of the packages
// that read snapshots: a small repository, and the issue-38 recipe that
// turns a git directory into a program (a smudge filter in its config,
// applied to every path by its info/attributes).
package gitsnaptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Git runs git in dir with a fixed identity and returns its trimmed
// output; a failure ends the test.
func Git(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		append([]string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_CONFIG_GLOBAL=/dev/null"}, env...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Repo makes a repository holding files (path → content; a path ending
// in "*" is executable, the star dropped) in one commit tagged tag, and
// returns its git directory and the commit. It skips the test without git.
func Repo(t testing.TB, files map[string]string, tag string) (gitDir, commit string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	work := t.TempDir()
	Git(t, work, nil, "init", "-q")
	for name, text := range files {
		mode := os.FileMode(0o644)
		if n, ok := strings.CutSuffix(name, "*"); ok {
			name, mode = n, 0o755
		}
		p := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	Git(t, work, nil, "add", ".")
	Git(t, work, nil, "commit", "-q", "-m", "one")
	if tag != "" {
		Git(t, work, nil, "tag", tag)
	}
	return filepath.Join(work, ".git"), Git(t, work, nil, "rev-parse", "HEAD")
}

// Poison adds the issue's recipe to gitDir: `* filter=evil ident
// export-subst` in info/attributes and a smudge filter in its config that
// writes `id` to the returned path. Any git command that converts a file
// for a work tree or an archive then runs the filter.
func Poison(t testing.TB, gitDir string) (pwned string) {
	t.Helper()
	pwned = filepath.Join(t.TempDir(), "PWNED")
	if err := os.MkdirAll(filepath.Join(gitDir, "info"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gitDir, "info", "attributes"), []byte("* filter=evil ident export-subst\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	Git(t, gitDir, nil, "--git-dir", gitDir, "config", "filter.evil.smudge", `sh -c "id > `+pwned+`; cat"`)
	Git(t, gitDir, nil, "--git-dir", gitDir, "config", "filter.evil.required", "true")
	return pwned
}

// Pwned fails the test when the poisoned filter ran.
func Pwned(t testing.TB, pwned string) {
	t.Helper()
	if b, err := os.ReadFile(pwned); err == nil {
		t.Errorf("the git directory's own filter ran: %s holds %q", pwned, strings.TrimSpace(string(b)))
	}
}
