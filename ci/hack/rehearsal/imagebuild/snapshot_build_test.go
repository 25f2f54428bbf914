package imagebuild

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gitsnap/gitsnaptest"
)

// gitRepo makes a bare repository with one commit tagged v1 (a.txt and
// sub/go.mod) and returns its git directory and the commit.
func gitRepo(t *testing.T) (string, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	work := t.TempDir()
	must := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	must("init", "-q")
	if err := os.MkdirAll(filepath.Join(work, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"a.txt": "a\n", "sub/go.mod": "module example.com/sub\n\ngo 1.22\n"} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must("add", ".")
	must("commit", "-q", "-m", "one")
	must("tag", "v1")
	return filepath.Join(work, ".git"), must("rev-parse", "HEAD")
}

func TestSnapshotTreeExtractsThePinnedCommit(t *testing.T) {
	gitDir, commit := gitRepo(t)
	root := t.TempDir()
	b := &builder{ctx: context.Background(), o: Options{Root: root, GitDirs: map[string]string{"o/r": gitDir}}}
	s := Snapshot{Repo: "o/r", Tag: "v1", Commit: commit}

	dir, err := b.snapshotTree(s, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "a\n" {
		t.Errorf("a.txt in %s: %q", dir, got)
	}

	// only sub/, and an edit that names the final path ("$4")
	dir2, err := b.snapshotTree(s, []string{"sub"}, []string{`echo "$4" > sub/where`})
	if err != nil {
		t.Fatal(err)
	}
	if dir2 == dir {
		t.Fatal("an edited tree shares the plain tree's cache entry")
	}
	if _, err := os.Stat(filepath.Join(dir2, "a.txt")); err == nil {
		t.Error("a.txt extracted though only sub/ was asked for")
	}
	if got, _ := os.ReadFile(filepath.Join(dir2, "sub", "where")); strings.TrimSpace(string(got)) != dir2 {
		t.Errorf("the edit saw %q, want the final path %s", got, dir2)
	}
}

func TestSnapshotTreeRefusesWhatIsNotThePin(t *testing.T) {
	gitDir, commit := gitRepo(t)
	b := &builder{ctx: context.Background(), o: Options{Root: t.TempDir(), GitDirs: map[string]string{"o/r": gitDir}}}
	tests := []struct {
		name string
		s    Snapshot
		want string
	}{
		{"no git dir given", Snapshot{Repo: "o/other", Tag: "v1", Commit: commit}, "--git-dir o/other=DIR"},
		{"tag missing", Snapshot{Repo: "o/r", Tag: "v2", Commit: commit}, "has no v2"},
		{"tag moved", Snapshot{Repo: "o/r", Tag: "v1", Commit: strings.Repeat("0", 40)}, "the tag moved upstream"},
		{"commit missing", Snapshot{Repo: "o/r", Commit: strings.Repeat("1", 40)}, "has no 111111111111"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := b.snapshotTree(tc.s, nil, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// issue 38's recipe: the git directory's own smudge filter is not run by
// the snapshot's extraction, and the files are the committed ones.
func TestSnapshotTreeRunsNoFilterOfTheGitDir(t *testing.T) {
	gitDir, commit := gitRepo(t)
	pwned := gitsnaptest.Poison(t, gitDir)
	b := &builder{ctx: context.Background(), o: Options{Root: t.TempDir(), GitDirs: map[string]string{"o/r": gitDir}}}
	dir, err := b.snapshotTree(Snapshot{Repo: "o/r", Tag: "v1", Commit: commit}, nil, nil)
	gitsnaptest.Pwned(t, pwned)
	if err != nil {
		t.Fatalf("snapshotTree of a poisoned git directory: %v, want a clean extraction", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "a\n" {
		t.Errorf("a.txt = %q", got)
	}
}

// kindnetd's two sources: extracted from poisoned git directories without
// running their filters, the module pointed at the other tree.
func TestKindnetdTreeRunsNoFilterOfTheGitDirs(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	kindDir, kindCommit := gitsnaptest.Repo(t, map[string]string{
		"images/kindnetd/go.mod": "module sigs.k8s.io/kind/images/kindnetd\n\ngo 1.22\n\nrequire sigs.k8s.io/kube-network-policies v0.0.0\n",
		"README.md":              "kind\n",
	}, "")
	knpDir, knpCommit := gitsnaptest.Repo(t, map[string]string{"go.mod": "module sigs.k8s.io/kube-network-policies\n\ngo 1.22\n"}, "")
	pwned := []string{gitsnaptest.Poison(t, kindDir), gitsnaptest.Poison(t, knpDir)}
	b := &builder{ctx: context.Background(), o: Options{Root: t.TempDir(), KindGitDir: kindDir, KubeNetworkPoliciesGitDir: knpDir}}
	tree, err := b.kindnetdTreeOf(Snapshot{Repo: "kubernetes-sigs/kind", Commit: kindCommit},
		Snapshot{Repo: "kubernetes-sigs/kube-network-policies", Commit: knpCommit})
	for _, p := range pwned {
		gitsnaptest.Pwned(t, p)
	}
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(tree, "go.mod"))
	want := "replace sigs.k8s.io/kube-network-policies => " + filepath.Join(filepath.Dir(filepath.Dir(tree)), "kube-network-policies")
	if err != nil || !strings.Contains(string(mod), want) {
		t.Errorf("kindnetd go.mod = %q, %v; want %q", mod, err, want)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(tree)), "README.md")); err == nil {
		t.Error("kind's README.md extracted though only images/kindnetd was asked for")
	}
	if _, err := b.kindnetdTreeOf(Snapshot{Repo: "kubernetes-sigs/kind", Commit: knpCommit},
		Snapshot{Repo: "kubernetes-sigs/kube-network-policies", Commit: knpCommit}); err == nil ||
		!strings.Contains(err.Error(), "--kind-git-dir") {
		t.Errorf("a kind git directory without the pinned commit: %v, want an error naming --kind-git-dir", err)
	}
}
