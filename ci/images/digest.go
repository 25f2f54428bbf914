package images

import (
	"fmt"
	"strings"
)

// digestHexLen is the length of each algorithm's hex encoding that a
// reference's digest may use (github.com/opencontainers/go-digest v1.0.0
// algorithm.go:56-62 anchoredEncodedRegexps: sha256 64, sha384 96, sha512
// 128 lowercase hex).
var digestHexLen = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}

// checkDigest accepts a reference without a digest, or one whose digest is
// ALGORITHM:HEX as above; anything else Docker and containerd refuse, and
// the bundle would name an archive after it (ArchiveName).
func checkDigest(ref string) error {
	_, digest, ok := strings.Cut(ref, "@")
	if !ok {
		return nil
	}
	alg, hex, _ := strings.Cut(digest, ":")
	n, known := digestHexLen[alg]
	if !known || len(hex) != n || strings.Trim(hex, "0123456789abcdef") != "" {
		return fmt.Errorf("image %q: the digest after '@' must be sha256:<64 lowercase hex> (or sha384/sha512), "+
			"as `docker image inspect --format '{{index .RepoDigests 0}}'` prints it", ref)
	}
	return nil
}

// ArchiveName is the archive file of a reference: readable, one per
// reference, no path separators. A digest is shortened to its first 12
// characters, however short or malformed it is (List refuses malformed ones).
func ArchiveName(ref string) string {
	r := strings.NewReplacer("/", "_", ":", "_", "@", "_")
	name, digest, _ := strings.Cut(ref, "@")
	if digest != "" {
		d := strings.TrimPrefix(digest, "sha256:")
		name += "@" + d[:min(len(d), 12)]
	}
	return r.Replace(name) + ".tar"
}
