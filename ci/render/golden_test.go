package render

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current rendering")

// TestGolden compares every rendered file of each test lab with
// testdata/golden/<lab>/<file>, and fails on golden files nothing renders.
// Regenerate with: go test ./ci/render -run TestGolden -update
func TestGolden(t *testing.T) {
	for name, l := range testLabs(t) {
		t.Run(name, func(t *testing.T) {
			files, err := All(l, dindOptions)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("testdata", "golden", name)
			if *update {
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
				for _, f := range files {
					p := filepath.Join(dir, filepath.FromSlash(f.Name))
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, f.Data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			rendered := map[string]bool{}
			for _, f := range files {
				rendered[filepath.FromSlash(f.Name)] = true
				want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Name)))
				if err != nil {
					t.Errorf("%s: no golden file (run go test ./ci/render -run TestGolden -update): %v", f.Name, err)
					continue
				}
				if !bytes.Equal(f.Data, want) {
					t.Errorf("%s differs from its golden file (run go test ./ci/render -run TestGolden -update and review the diff)\n--- got ---\n%s\n"+
						"--- want ---\n%s", f.Name, f.Data, want)
				}
			}
			var stale []string
			_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(dir, p)
					if !rendered[rel] {
						stale = append(stale, rel)
					}
				}
				return nil
			})
			sort.Strings(stale)
			for _, s := range stale {
				t.Errorf("golden file %s is no longer rendered; delete it or run with -update", s)
			}
		})
	}
}
