package gitsnap

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
)

// Commit reads commit's object, checked to hash to its name.
func (r Repo) Commit(ctx context.Context, commit string) (Commit, error) {
	var c Commit
	err := r.withObjects(ctx, func(o *objects) error {
		var err error
		c, err = o.commit(commit)
		return err
	})
	return c, err
}

// File is the content of the file at path (slash-separated, from the
// repository's root) in commit, every object on the way checked.
func (r Repo) File(ctx context.Context, commit, file string) ([]byte, error) {
	var b []byte
	err := r.withObjects(ctx, func(o *objects) error {
		c, err := o.commit(commit)
		if err != nil {
			return err
		}
		e, err := o.lookup(c.Tree, file)
		if err != nil {
			return fmt.Errorf("%s at %s in %s: %w", file, short(commit), r.Dir, err)
		}
		if !isFile(e.Mode) {
			return fmt.Errorf("%s at %s in %s is not a file (mode %s)", file, short(commit), r.Dir, e.Mode)
		}
		b, err = o.read(e.OID, "blob")
		return err
	})
	return b, err
}

// Extract writes the tree of commit into dst — only paths (files or
// directories, slash-separated from the repository's root) when given,
// each at its path under dst as `git archive COMMIT PATHS | tar -x`
// places it — from objects checked against their names, through an
// os.Root of dst: no file is written outside dst, none is overwritten.
func (r Repo) Extract(ctx context.Context, commit, dst string, paths ...string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dst)
	if err != nil {
		return err
	}
	defer root.Close()
	err = r.withObjects(ctx, func(o *objects) error {
		c, err := o.commit(commit)
		if err != nil {
			return err
		}
		w := writer{o: o, root: root}
		if len(paths) == 0 {
			return w.tree(c.Tree, ".")
		}
		for _, p := range paths {
			e, err := o.lookup(c.Tree, p)
			if err != nil {
				return fmt.Errorf("%s at %s: %w", p, short(commit), err)
			}
			clean := path.Clean(p)
			if dir := path.Dir(clean); dir != "." {
				if err := root.MkdirAll(dir, 0o755); err != nil {
					return err
				}
			}
			if err := w.entry(e, clean); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("extract %s of %s into %s: %w", short(commit), r.Dir, dst, err)
	}
	return nil
}

func (r Repo) withObjects(ctx context.Context, f func(*objects) error) error {
	o, err := r.objects(ctx)
	if err != nil {
		return err
	}
	err = f(o)
	if cerr := o.close(); err == nil {
		err = cerr
	}
	return err
}

func (o *objects) commit(oid string) (Commit, error) {
	b, err := o.read(oid, "commit")
	if err != nil {
		return Commit{}, err
	}
	return parseCommit(oid, b)
}

// ErrNotFound is wrapped by File's and Extract's error when a path is not
// in the commit.
var ErrNotFound = errors.New("no such path in the commit")

// lookup walks tree down the components of p.
func (o *objects) lookup(tree, p string) (entry, error) {
	clean := path.Clean(p)
	if p == "" || path.IsAbs(clean) || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return entry{}, fmt.Errorf("path %q is not inside the repository", p)
	}
	cur := entry{Mode: "40000", OID: tree}
	for _, name := range strings.Split(clean, "/") {
		if cur.Mode != "40000" {
			return entry{}, ErrNotFound
		}
		b, err := o.read(cur.OID, "tree")
		if err != nil {
			return entry{}, err
		}
		es, err := parseTree(cur.OID, b)
		if err != nil {
			return entry{}, err
		}
		found := false
		for _, e := range es {
			if e.Name == name {
				cur, found = e, true
				break
			}
		}
		if !found {
			return entry{}, ErrNotFound
		}
	}
	return cur, nil
}

// isFile: the modes of a regular file (100664 from old git versions is
// read as 100644, as git does).
func isFile(mode string) bool {
	return mode == "100644" || mode == "100755" || mode == "100664"
}

// writer writes checked objects under root.
type writer struct {
	o    *objects
	root *os.Root
}

func (w writer) tree(oid, dir string) error {
	b, err := w.o.read(oid, "tree")
	if err != nil {
		return err
	}
	es, err := parseTree(oid, b)
	if err != nil {
		return err
	}
	if err := w.root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, e := range es {
		if err := w.entry(e, path.Join(dir, e.Name)); err != nil {
			return err
		}
	}
	return nil
}

func (w writer) entry(e entry, rel string) error {
	switch {
	case e.Mode == "40000":
		return w.tree(e.OID, rel)
	case e.Mode == "160000":
		// a submodule: git archive writes an empty directory
		return w.root.MkdirAll(rel, 0o755)
	case e.Mode == "120000":
		target, err := w.o.read(e.OID, "blob")
		if err != nil {
			return err
		}
		if strings.ContainsRune(string(target), 0) || len(target) == 0 {
			return fmt.Errorf("%s: symbolic link target %q", rel, target)
		}
		return w.root.Symlink(string(target), rel)
	case isFile(e.Mode):
		b, err := w.o.read(e.OID, "blob")
		if err != nil {
			return err
		}
		perm := fs.FileMode(0o644)
		if e.Mode == "100755" {
			perm = 0o755
		}
		f, err := w.root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err != nil {
			return err
		}
		_, err = f.Write(b)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return fmt.Errorf("%s: tree entry mode %s is not one git writes", rel, e.Mode)
}
