package daggerbuild

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/mod/module"
)

// ProxyFiles are the paths of one module version in a GOPROXY file tree
// (cmd/go's GOPROXY protocol: <module>/@v/list, <version>.info, .mod,
// .zip, with upper-case letters escaped as "!x").
func ProxyFiles(root, path, version string) (list, info, mod, zip string, err error) {
	ep, err := module.EscapePath(path)
	if err != nil {
		return "", "", "", "", fmt.Errorf("goproxy tree: %w", err)
	}
	ev, err := module.EscapeVersion(version)
	if err != nil {
		return "", "", "", "", fmt.Errorf("goproxy tree: %w", err)
	}
	dir := filepath.Join(root, filepath.FromSlash(ep), "@v")
	base := filepath.Join(dir, ev)
	return filepath.Join(dir, "list"), base + ".info", base + ".mod", base + ".zip", nil
}

// InfoJSON is a version's .info file.
func InfoJSON(version string, t time.Time) []byte {
	b, _ := json.Marshal(struct {
		Version string
		Time    string
	}{version, t.UTC().Format(time.RFC3339)})
	return append(b, '\n')
}

// AddToProxy writes z into the GOPROXY file tree at root and adds its
// version to the module's list.
func AddToProxy(root string, z Zipped) error {
	list, info, mod, zip, err := ProxyFiles(root, z.Module.Path, z.Module.Version)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(list), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(info, InfoJSON(z.Module.Version, z.Time), 0o644); err != nil {
		return err
	}
	if err := copyFile(z.GoMod, mod); err != nil {
		return err
	}
	if err := copyFile(z.Zip, zip); err != nil {
		return err
	}
	old, _ := os.ReadFile(list)
	return os.WriteFile(list, []byte(AddVersion(string(old), z.Module.Version)), 0o644)
}

// AddVersion adds version to a list file's text (one version a line,
// sorted, no duplicates).
func AddVersion(list, version string) string {
	seen := map[string]bool{version: true}
	for _, v := range strings.Fields(list) {
		seen[v] = true
	}
	vs := make([]string, 0, len(seen))
	for v := range seen {
		vs = append(vs, v)
	}
	sort.Strings(vs)
	return strings.Join(vs, "\n") + "\n"
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
