package daggerbuild

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// mirror is where the fetch tool keeps snapshots on the maintainers'
// machine; tests that need one skip without it.
func mirror(t *testing.T, repo string) string {
	t.Helper()
	dir := filepath.Join("/work/.mirror", repo, "repo")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no git snapshot %s: %v", dir, err)
	}
	return dir
}

func daggerGoSum(t *testing.T) Sums {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", mirror(t, "dagger+dagger"), "show", DaggerPin.Commit+":go.sum").Output()
	if err != nil {
		t.Fatalf("dagger's go.sum at %s: %v", DaggerPin.Tag, err)
	}
	sums, err := ParseGoSum(out)
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

// The zips made from the snapshots hash to what dagger's go.sum says, so
// the file proxy serves exactly the modules cmd/go would have fetched.
func TestRefusedModulesZipToDaggersGoSum(t *testing.T) {
	sums := daggerGoSum(t)
	for _, m := range RefusedModules {
		t.Run(m.Path, func(t *testing.T) {
			dir := mirror(t, strings.ReplaceAll(m.Repo, "/", "+"))
			z, err := ZipModule(context.Background(), dir, m, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if err := sums.Check(m, z.ZipHash, z.ModHash); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestSumsCheck(t *testing.T) {
	m := VCSModule{Path: "example.com/m", Version: "v1.0.0", Repo: "o/m", Commit: "0123456789abcdef0123456789abcdef01234567"}
	sums, err := ParseGoSum([]byte("example.com/m v1.0.0 h1:zip=\nexample.com/m v1.0.0/go.mod h1:mod=\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, zip, mod string
		ok             bool
	}{
		{"both equal", "h1:zip=", "h1:mod=", true},
		{"zip differs", "h1:other=", "h1:mod=", false},
		{"go.mod differs", "h1:zip=", "h1:other=", false},
	} {
		if err := sums.Check(m, c.zip, c.mod); (err == nil) != c.ok {
			t.Errorf("%s: Check = %v, want ok=%v", c.name, err, c.ok)
		}
	}
	m.Version = "v1.0.1"
	if err := sums.Check(m, "h1:zip=", "h1:mod="); err == nil {
		t.Error("a version go.sum lacks passed the check")
	}
}

func TestParseGoSumRefusesOtherLines(t *testing.T) {
	if _, err := ParseGoSum([]byte("example.com/m v1.0.0\n")); err == nil {
		t.Error("a line without hash was accepted")
	}
}
