package daggerbuild

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// VCSModule is a module version the Go module proxy refuses to serve,
// taken from a git snapshot of its repository at the commit the version
// names.
type VCSModule struct {
	Path, Version string
	// Repo is the GitHub owner/name; Commit the full commit the version
	// names (its tag's, or a pseudo-version's revision).
	Repo, Commit string
	// Subdir is the module's directory in the repository ("" at the root).
	Subdir string
}

// Pin is the snapshot pin: the commit alone (a tag, where one exists, is
// checked by the commit it must name).
func (m VCSModule) Pin() string { return m.Commit }

// RefusedModules are the dependencies of dagger v0.21.8's go.mod
// (lines 153-160 @v0.21.8) the module proxy refuses; their commits are
// the tags' (v0.0.6, v2.1.1) and the pseudo-versions' revisions.
var RefusedModules = []VCSModule{
	{Path: "github.com/vito/tuist", Version: "v0.0.6", Repo: "vito/tuist", Commit: "1b1ca3050245b6b4e6e94a36af338960e1ba488f"},
	{Path: "github.com/vito/tuist/teav1", Version: "v0.0.0-20260330150345-de388bf31342", Repo: "vito/tuist",
		Commit: "de388bf3134207760332df7193999023e05f5b0a", Subdir: "teav1"},
	{Path: "github.com/vito/midterm", Version: "v0.2.5-0.20260312180916-3c2add750bea", Repo: "vito/midterm",
		Commit: "3c2add750bea62ac384f1801e8711acbbe4fc38a"},
	{Path: "github.com/vito/dang/v2", Version: "v2.1.1", Repo: "vito/dang", Commit: "af00e3d7ba99257b43b0347dca0a63c0a775cf71"},
}

// GoSDKModule is dagger.io/dagger at the commit the engine's Go SDK asks
// modules to require (goSDKLibVersion, core/sdk/go_sdk.go:30 @v0.21.8):
// cmd/go names that commit of github.com/dagger/dagger-go-sdk (the
// module's published repository) by this pseudo-version.
var GoSDKModule = VCSModule{
	Path: "dagger.io/dagger", Version: "v0.21.5-0.20260727204138-56bb30426a84",
	Repo: "dagger/dagger-go-sdk", Commit: "56bb30426a8462af6f95cfdae6461d0cc796ff50",
}

// Sums are the h1 hashes of a go.sum: "path version" → zip hash and
// "path version/go.mod" → go.mod hash.
type Sums map[string]string

// ParseGoSum reads go.sum text. A line that is not "path version h1:…"
// is an error: a go.sum cmd/go wrote has no other kind.
func ParseGoSum(text []byte) (Sums, error) {
	sums := Sums{}
	sc := bufio.NewScanner(bytes.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 || !strings.HasPrefix(f[2], "h1:") {
			return nil, fmt.Errorf("go.sum line %d is not \"module version h1:hash\": %q", n, sc.Text())
		}
		sums[f[0]+" "+f[1]] = f[2]
	}
	return sums, sc.Err()
}

// Check fails unless the zip's and go.mod's hashes are the ones sums
// holds for m (a module missing from sums fails too: nothing unchecked
// is served).
func (s Sums) Check(m VCSModule, zipHash, modHash string) error {
	for _, c := range []struct{ key, got string }{
		{m.Path + " " + m.Version, zipHash},
		{m.Path + " " + m.Version + "/go.mod", modHash},
	} {
		want, ok := s[c.key]
		if !ok {
			return fmt.Errorf("go.sum has no line for %s: the pin of %s does not match the go.sum it is checked against", c.key, m.Repo)
		}
		if want != c.got {
			return fmt.Errorf("%s: the zip made from github.com/%s at %s hashes to %s, go.sum says %s; check the pinned commit and how "+
				"the zip is made", c.key, m.Repo, m.Commit[:12], c.got, want)
		}
	}
	return nil
}
