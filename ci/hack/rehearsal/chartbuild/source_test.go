package chartbuild

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gitsnap"
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
		cmd.Env = append(os.Environ(),
			append([]string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}, env...)...)
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

func TestEtcdReleases(t *testing.T) {
	ctx := context.Background()
	gd := gitRepo(t)
	rels, err := etcdReleases(ctx, gitsnap.Repo{Dir: gd})
	if err != nil {
		t.Fatal(err)
	}
	if len(rels) != 2 || rels[0].Tag != "v0.16.0" || rels[1].Version != "0.17.0" || !rels[1].Time.Equal(at("2026-07-11T19:25:21+02:00")) {
		t.Fatalf("etcdReleases = %+v", rels)
	}
}
