package chartbuild

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// gitRepo makes a repository with kamaji-etcd-shaped tags and returns its
// git directory.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	run := func(env []string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), append([]string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}, env...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(rel, body string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(nil, "init", "-q")
	write("charts/kamaji-etcd/Chart.yaml", "name: kamaji-etcd\nversion: 0.16.0\n")
	write("README.md", "x\n")
	run(nil, "add", ".")
	run([]string{"GIT_COMMITTER_DATE=2026-07-06T08:46:41+02:00"}, "commit", "-q", "-m", "one")
	run(nil, "tag", "v0.16.0")
	write("charts/kamaji-etcd/Chart.yaml", "name: kamaji-etcd\nversion: 0.17.0\n")
	run(nil, "add", ".")
	run([]string{"GIT_COMMITTER_DATE=2026-07-11T19:25:21+02:00"}, "commit", "-q", "-m", "two")
	run(nil, "tag", "v0.17.0")
	run(nil, "tag", "not-a-release")
	return filepath.Join(dir, ".git")
}

func TestGitSource(t *testing.T) {
	ctx := context.Background()
	gd := gitRepo(t)
	rels, err := etcdReleases(ctx, gd)
	if err != nil {
		t.Fatal(err)
	}
	if len(rels) != 2 || rels[0].Tag != "v0.16.0" || rels[1].Version != "0.17.0" || !rels[1].Time.Equal(at("2026-07-11T19:25:21+02:00")) {
		t.Fatalf("etcdReleases = %+v", rels)
	}
	dst := t.TempDir()
	if err := Extract(ctx, gd, "v0.16.0", dst, "charts/kamaji-etcd"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dst, "charts/kamaji-etcd/Chart.yaml"))
	if err != nil || string(b) != "name: kamaji-etcd\nversion: 0.16.0\n" {
		t.Errorf("extracted Chart.yaml = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dst, "README.md")); !os.IsNotExist(err) {
		t.Errorf("a path not asked for was extracted: %v", err)
	}
	if err := Extract(ctx, gd, "v9.9.9", t.TempDir(), "charts"); err == nil {
		t.Error("Extract of a missing tag succeeded")
	}
	if _, _, err := Commit(ctx, gd, "v9.9.9"); err == nil {
		t.Error("Commit of a missing tag succeeded")
	}
}
