package state

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// RemoveLabState removes the state of a lab that `down` removed: the
// kubeconfigs, helm values and stage records labctl recorded writing.
// The resolved lab, the backend line and diagnostics bundles stay for
// post-mortems; anything labctl did not write stays too (a directory of
// its own is removed only once empty). It returns the removed paths.
func (d Dir) RemoveLabState() ([]string, error) {
	return d.remove(func(rel string) bool {
		return rel == StagesFile || strings.HasPrefix(rel, KubeconfigsDir+"/") || strings.HasPrefix(rel, valuesDir+"/")
	}, false)
}

// RemoveTenantState removes the state of one tenant removed from a running
// lab: its kubeconfig and the values files named (names as Values takes
// them), where labctl recorded writing them. It returns the removed paths.
func (d Dir) RemoveTenantState(tenant string, values ...string) ([]string, error) {
	rels := map[string]bool{kubeconfigRel(tenant): true}
	for _, v := range values {
		rels[valuesDir+"/"+v] = true
	}
	return d.remove(func(rel string) bool { return rels[rel] }, false)
}

// RemoveAll removes everything labctl recorded writing, then the marker
// and the directory when nothing else is left in it: the stale state of a
// local test environment that stopped (its processes and their data are
// gone with it). Files labctl did not write stay.
func (d Dir) RemoveAll() ([]string, error) {
	return d.remove(func(string) bool { return true }, true)
}

func (d Dir) remove(selected func(rel string) bool, all bool) ([]string, error) {
	markerMu.Lock()
	defer markerMu.Unlock()
	m, err := d.Marker()
	if err != nil {
		return nil, err
	}
	if err := d.CheckSafe(); err != nil {
		return nil, err
	}
	var removed, kept []string
	var errs []error
	// Deepest first, so a directory's files go before the directory.
	paths := slices.Clone(m.Written)
	slices.SortFunc(paths, func(a, b string) int { return strings.Compare(b, a) })
	for _, rel := range paths {
		if err := d.confined(rel); err != nil {
			errs = append(errs, err) // reported, never followed
			kept = append(kept, rel)
			continue
		}
		if !selected(rel) {
			kept = append(kept, rel)
			continue
		}
		p := d.path(strings.TrimSuffix(rel, "/"))
		err := os.Remove(p)
		switch {
		case err == nil:
			removed = append(removed, p)
		case errors.Is(err, os.ErrNotExist):
		case strings.HasSuffix(rel, "/"):
			// Not empty: it holds something labctl did not write (or a
			// bundle it keeps). It stays, and stays recorded.
			kept = append(kept, rel)
			continue
		default:
			errs = append(errs, err)
			kept = append(kept, rel)
		}
	}
	slices.Sort(kept)
	if all && len(kept) == 0 && len(errs) == 0 {
		if err := os.Remove(d.path(markerFile)); err != nil {
			return removed, fmt.Errorf("state dir %s: %w", d, err)
		}
		if err := os.Remove(string(d)); err == nil {
			removed = append(removed, string(d))
		}
		return removed, nil
	}
	m.Written = kept
	if err := d.saveMarker(m); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return removed, fmt.Errorf("state dir %s: %w", d, errors.Join(errs...))
	}
	return removed, nil
}

// confined checks a marker entry before anything is removed by it: a
// clean relative path inside the state dir (filepath.IsLocal: no "..", not
// absolute), whose directories on the way are real directories of the
// state dir (no symlink, checked as writes check them), so the removal
// cannot reach outside. The last component may be a symlink: os.Remove
// removes the link, not what it points to. A parent that no longer exists
// leaves nothing to remove.
func (d Dir) confined(rel string) error {
	clean := strings.TrimSuffix(rel, "/")
	if !filepath.IsLocal(clean) || path.Clean(clean) != clean || strings.Contains(clean, "\\") {
		return fmt.Errorf("%s lists %q, which is not a clean path inside the state dir: "+
			"not removed (remove the entry from %s by hand)", markerFile, rel, d.path(markerFile))
	}
	cur := ""
	for _, part := range strings.Split(path.Dir(clean), "/") {
		if part == "." {
			break
		}
		cur = path.Join(cur, part)
		if _, err := os.Lstat(d.path(cur)); errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err := checkSafe(string(d), d.path(cur)); err != nil {
			return fmt.Errorf("%s lists %q, below %s: not removed: %w", markerFile, rel, d.path(cur), err)
		}
	}
	return nil
}
