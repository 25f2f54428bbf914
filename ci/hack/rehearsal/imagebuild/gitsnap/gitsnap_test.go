package gitsnap

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gitsnap/gitsnaptest"
)

// files of the test repository: "$Id$" and "$Format:%H$" show whether the
// ident and export-subst attributes were applied.
var files = map[string]string{
	"a.txt":         "a $Id$\n",
	"sub/go.mod":    "module example.com/sub\n\ngo 1.22\n",
	"sub/run.sh*":   "#!/bin/sh\necho $Format:%H$\n",
	"other/keep.md": "keep\n",
}

func TestPoisonRecipeRunsUnderGitArchive(t *testing.T) {
	// the recipe itself: git archive of the poisoned directory runs the
	// filter, so the tests below that show it does not run can fail
	gitDir, commit := gitsnaptest.Repo(t, files, "v1")
	pwned := gitsnaptest.Poison(t, gitDir)
	var errb bytes.Buffer
	cmd := exec.Command("git", "--git-dir", gitDir, "archive", commit)
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("git archive: %v: %s", err, errb.String())
	}
	if _, err := os.Stat(pwned); err != nil {
		t.Fatalf("git archive of the poisoned directory did not run its filter (%v): the recipe shows nothing", err)
	}
}

func TestExtractRunsNoFilterAndAppliesNoAttribute(t *testing.T) {
	gitDir, commit := gitsnaptest.Repo(t, files, "v1")
	pwned := gitsnaptest.Poison(t, gitDir)
	r, err := Open(gitDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dst := t.TempDir()
	if err := r.Extract(ctx, commit, dst); err != nil {
		t.Fatal(err)
	}
	gitsnaptest.Pwned(t, pwned)
	for name, want := range files {
		mode := os.FileMode(0o644)
		if n, ok := strings.CutSuffix(name, "*"); ok {
			name, mode = n, 0o755
		}
		p := filepath.Join(dst, name)
		got, err := os.ReadFile(p)
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want the committed %q", name, got, err, want)
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o111 != mode&0o111 {
			t.Errorf("%s has mode %v, want %v", name, fi.Mode().Perm(), mode)
		}
	}
	b, err := r.File(ctx, commit, "a.txt")
	if err != nil || string(b) != files["a.txt"] {
		t.Errorf("File(a.txt) = %q, %v", b, err)
	}
	gitsnaptest.Pwned(t, pwned)
}

func TestExtractOnlyThePathsAskedFor(t *testing.T) {
	gitDir, commit := gitsnaptest.Repo(t, files, "v1")
	r := Repo{Dir: gitDir}
	dst := t.TempDir()
	if err := r.Extract(context.Background(), commit, dst, "sub", "other/keep.md"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"sub/go.mod": true, "sub/run.sh": true, "other/keep.md": true, "a.txt": false} {
		if _, err := os.Stat(filepath.Join(dst, name)); (err == nil) != want {
			t.Errorf("%s extracted: %v, want %v", name, err == nil, want)
		}
	}
	for _, p := range []string{"nope", "a.txt/x", "../x", "/etc"} {
		if err := r.Extract(context.Background(), commit, t.TempDir(), p); err == nil {
			t.Errorf("Extract of path %q succeeded", p)
		}
	}
}

func TestExtractIgnoresReplaceObjects(t *testing.T) {
	gitDir, commit := gitsnaptest.Repo(t, files, "v1")
	orig := gitsnaptest.Git(t, gitDir, nil, "--git-dir", gitDir, "rev-parse", commit+":a.txt")
	other := gitsnaptest.Git(t, gitDir, nil, "--git-dir", gitDir, "rev-parse", commit+":other/keep.md")
	gitsnaptest.Git(t, gitDir, nil, "--git-dir", gitDir, "replace", orig, other)
	b, err := Repo{Dir: gitDir}.File(context.Background(), commit, "a.txt")
	if err != nil || string(b) != files["a.txt"] {
		t.Errorf("a.txt under a replace ref = %q, %v; want the committed content", b, err)
	}
}

func TestExtractRefusesAnAlteredObject(t *testing.T) {
	gitDir, commit := gitsnaptest.Repo(t, files, "v1")
	blob := gitsnaptest.Git(t, gitDir, nil, "--git-dir", gitDir, "rev-parse", commit+":a.txt")
	// the loose object stored under the blob's name now holds other bytes
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write([]byte("blob 5\x00evil\n"))
	zw.Close()
	p := filepath.Join(gitDir, "objects", blob[:2], blob[2:])
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Repo{Dir: gitDir}.Extract(context.Background(), commit, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "hashes to") {
		t.Errorf("Extract of an altered object: %v, want an error saying it hashes to another name", err)
	}
}

func TestCheck(t *testing.T) {
	gitDir, commit := gitsnaptest.Repo(t, files, "v1")
	r := Repo{Dir: gitDir}
	ctx := context.Background()
	if err := r.Check(ctx, Pin{Repo: "o/r", Tag: "v1", Commit: commit}); err != nil {
		t.Errorf("the pinned tag: %v", err)
	}
	if err := r.Check(ctx, Pin{Repo: "o/r", Commit: commit}); err != nil {
		t.Errorf("the pinned commit: %v", err)
	}
	tests := []struct {
		name string
		pin  Pin
		want string
	}{
		{"tag moved", Pin{Repo: "o/r", Tag: "v1", Commit: strings.Repeat("0", 40)}, "the tag moved upstream"},
		{"tag missing", Pin{Repo: "o/r", Tag: "v2", Commit: commit}, "has no v2 of github.com/o/r"},
		{"commit missing", Pin{Repo: "o/r", Commit: strings.Repeat("1", 40)}, "has no 111111111111"},
		{"not a commit name", Pin{Repo: "o/r", Tag: "v1", Commit: "v1"}, "not a full object name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := r.Check(ctx, tc.pin)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Check: %v, want an error saying %q", err, tc.want)
			}
			if tc.name == "tag moved" && !errors.Is(err, ErrMoved) {
				t.Errorf("a moved tag's error does not wrap ErrMoved: %v", err)
			}
		})
	}
	tags, err := r.Tags(ctx)
	if err != nil || len(tags) != 1 || tags[0] != "v1" {
		t.Errorf("Tags = %v, %v", tags, err)
	}
}

func TestParseTreeRefusesUnsafeNames(t *testing.T) {
	oid := strings.Repeat("a", 40)
	raw := func(names ...string) []byte {
		var b bytes.Buffer
		for _, n := range names {
			b.WriteString("100644 " + n + "\x00")
			b.Write(bytes.Repeat([]byte{0xab}, 20))
		}
		return b.Bytes()
	}
	tests := []struct {
		name  string
		body  []byte
		valid bool
	}{
		{"plain", raw("a", "b"), true},
		{"dot dot", raw(".."), false},
		{"dot", raw("."), false},
		{"slash", raw("a/b"), false},
		{"empty", raw(""), false},
		{"twice", raw("a", "a"), false},
		{"truncated", raw("a")[:10], false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseTree(oid, tc.body)
			if (err == nil) != tc.valid {
				t.Errorf("parseTree: %v, want valid %v", err, tc.valid)
			}
		})
	}
}

func TestParseCommitTime(t *testing.T) {
	tree := strings.Repeat("b", 40)
	body := "tree " + tree + "\nauthor A <a@a> 1 +0000\ncommitter C <c@c> 1783794321 +0200\n\nmsg\n"
	c, err := parseCommit(strings.Repeat("c", 40), []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if c.Tree != tree || c.Time.Unix() != 1783794321 || c.Time.Format("-0700") != "+0200" {
		t.Errorf("parseCommit = %+v", c)
	}
	if _, err := parseCommit(strings.Repeat("c", 40), []byte("tree "+tree+"\n\n")); err == nil {
		t.Error("a commit without committer parsed")
	}
}
