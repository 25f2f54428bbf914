package state

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemoveNeverLeavesTheStateDir: the try — a marker whose
// written list holds ../victim — and its kin: an entry that climbs out
// through a directory labctl removes (kubeconfigs/../../), one that is
// not clean and names the user's file in the state dir through such a
// directory, an absolute one, one below a symlinked directory. Each is reported by name and
// nothing it names is removed; labctl's own files still go.
func TestRemoveNeverLeavesTheStateDir(t *testing.T) {
	for name, remove := range map[string]func(Dir) ([]string, error){"RemoveLabState": Dir.RemoveLabState, "RemoveAll": Dir.RemoveAll} {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			outside := filepath.Join(parent, "outside")
			must(t, os.Mkdir(outside, 0o700))
			d := Dir(filepath.Join(parent, "state"))
			must(t, d.Claim(RealLab))
			must(t, d.WriteKubeconfig("tenant-a", []byte("a")))
			victims := map[string]string{
				"../victim":                   filepath.Join(parent, "victim"),
				"kubeconfigs/../../victim2":   filepath.Join(parent, "victim2"),
				"kubeconfigs/../notes.txt":    d.path("notes.txt"),
				filepath.Join(outside, "abs"): filepath.Join(outside, "abs"),
				"values/owned.yaml":           filepath.Join(outside, "owned.yaml"),
			}
			for _, p := range victims {
				must(t, os.WriteFile(p, []byte("user's"), 0o600))
			}
			must(t, os.Symlink(outside, d.path("values"))) // values/ → a directory outside
			m, err := d.Marker()
			must(t, err)
			for rel := range victims {
				m.Written = append(m.Written, rel)
			}
			must(t, d.saveMarker(m))

			removed, err := remove(d)
			for rel, p := range victims {
				if _, serr := os.Stat(p); serr != nil {
					t.Errorf("marker entry %q removed %s (%v)", rel, p, serr)
				}
				if err == nil || !strings.Contains(err.Error(), `"`+rel+`"`) {
					t.Errorf("err = %v, want it to name the entry %q", err, rel)
				}
			}
			if _, serr := os.Stat(d.Kubeconfig("tenant-a")); !os.IsNotExist(serr) {
				t.Errorf("labctl's own kubeconfig not removed (%v); removed %v", serr, removed)
			}
			if m, merr := d.Marker(); merr != nil || len(m.Written) == 0 {
				t.Errorf("the marker lost the bad entries (%+v, %v): they must stay reported", m, merr)
			}
		})
	}
}
