package state

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaim: labctl makes a state dir only where none is or in an empty
// directory, never in one of another backend, another user or with
// group/other write access; the error names the dir and the fix.
func TestClaim(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, dir string)
		kind    Kind
		want    string // "" = claimed
	}{
		{"new directory", func(t *testing.T, dir string) { os.Remove(dir) }, RealLab, ""},
		{"empty directory", func(t *testing.T, dir string) {}, Testenv, ""},
		{"empty directory of mode 0755", func(t *testing.T, dir string) { must(t, os.Chmod(dir, 0o755)) }, RealLab, ""},
		{"same kind again", func(t *testing.T, dir string) { must(t, Dir(dir).Claim(RealLab)) }, RealLab, ""},
		{"another kind", func(t *testing.T, dir string) { must(t, Dir(dir).Claim(Testenv)) }, RealLab,
			"was made by `labctl testenv up`, not `labctl up`: use another --state-dir, or `labctl down --state-dir"},
		{"not empty, no marker", func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o600))
		}, RealLab, "is not empty (notes.txt) and has no labctl-state.json"},
		{"writable by others", func(t *testing.T, dir string) { must(t, os.Chmod(dir, 0o777)) }, RealLab,
			"has mode drwxrwxrwx, so group or others may write it"},
		{"owned by another user", func(t *testing.T, dir string) {
			if os.Getuid() != 0 {
				t.Skip("only root can give a directory to another user")
			}
			must(t, os.Chown(dir, 65534, 65534))
		}, RealLab, "is owned by uid 65534, not by you (uid 0), mode drwx------"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			must(t, os.Mkdir(dir, 0o700))
			tc.prepare(t, dir)
			err := Dir(dir).Claim(tc.kind)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				fi, err := os.Stat(dir)
				if err != nil || fi.Mode().Perm() != 0o700 {
					t.Errorf("state dir mode %v (%v), want 0700", fi.Mode(), err)
				}
				if got := Dir(dir).Kind(); got != tc.kind {
					t.Errorf("kind %q, want %q", got, tc.kind)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), dir) {
				t.Fatalf("err = %v\nwant it to contain %q and the dir", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, markerFile)); tc.name != "another kind" && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused dir got a marker (%v)", err)
			}
		})
	}
}

// TestWriteNeedsMarker: nothing is written into a directory labctl did not
// claim.
func TestWriteNeedsMarker(t *testing.T) {
	d := Dir(t.TempDir())
	err := d.WriteKubeconfig("tenant-a", []byte("x"))
	if !errors.Is(err, ErrNotLabctl) {
		t.Fatalf("err = %v, want ErrNotLabctl", err)
	}
	if _, err := os.Stat(filepath.Join(string(d), KubeconfigsDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("kubeconfigs/ made in an unclaimed dir (%v)", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
