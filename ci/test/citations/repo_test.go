package citations

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scanned are the trees whose citations must resolve inside the repository.
var scanned = []string{"ci", ".dagger", "manifests", ".ci", "README.md"}

// TestCitationsResolve fails on any citation of the research notes kept
// outside the repository, and on any "FILE.md §N" / "FILE.md#anchor" whose
// document or heading does not exist in the repository. This package's own
// directory is skipped: its tests cite made-up documents on purpose.
func TestCitationsResolve(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	self, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	docs := markdownFiles(t, root)
	checked := 0
	for _, top := range scanned {
		dir := filepath.Join(root, top)
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			continue
		}
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path == self || d.Name() == ".git" || d.Name() == "node_modules" {
					return filepath.SkipDir
				}
				return nil
			}
			// Recorded upstream output under testdata is upstream's text, not ours;
			// the READMEs beside it state provenance and are checked.
			if strings.Contains(path, string(filepath.Separator)+"testdata"+string(filepath.Separator)) && filepath.Ext(path) != ".md" {
				return nil
			}
			text, err := os.ReadFile(path)
			if err != nil || bytes.IndexByte(text, 0) >= 0 {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			for i, line := range strings.Split(string(text), "\n") {
				if names := forbidden(line); len(names) > 0 {
					t.Errorf("%s:%d cites %v, research notes outside the repository: cite upstream file:line at the pinned tag, or the facts document "+
						"beside the code (e.g. ci/testenv/hamidouble/HAMI-FACTS.md)", rel, i+1, names)
				}
			}
			for _, c := range find(string(text)) {
				checked++
				if msg := resolve(root, filepath.Dir(path), docs, c); msg != "" {
					t.Errorf("%s:%d cites %s %s: %s", rel, c.Line, c.Doc, section(c), msg)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked == 0 {
		t.Fatal("no document citation found anywhere: the scan itself is broken")
	}
	t.Logf("%d document citations checked", checked)
}

func section(c Citation) string {
	if c.Anchor {
		return "#" + c.Section
	}
	return "§" + c.Section
}

// resolve returns why c does not resolve, or "".
func resolve(root, dir string, docs map[string][]string, c Citation) string {
	var path string
	if strings.Contains(c.Doc, "/") {
		for _, p := range []string{filepath.Join(root, c.Doc), filepath.Join(dir, c.Doc)} {
			if _, err := os.Stat(p); err == nil {
				path = p
				break
			}
		}
		if path == "" {
			return "no such document in the repository"
		}
	} else {
		switch found := docs[c.Doc]; len(found) {
		case 0:
			return "no document of that name in the repository"
		case 1:
			path = found[0]
		default:
			return "ambiguous, several documents have that name (" + strings.Join(found, ", ") + "): cite it by its path"
		}
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	nums, anchors := headings(string(text))
	if c.Anchor && !anchors[c.Section] || !c.Anchor && !nums[c.Section] {
		return "the document has no such heading"
	}
	return ""
}

// markdownFiles maps each Markdown file name in the repository to its paths.
func markdownFiles(t *testing.T, root string) map[string][]string {
	docs := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && filepath.Ext(path) == ".md" {
			docs[d.Name()] = append(docs[d.Name()], path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}
