package docker

import "github.com/distribution/reference"

// Normalize spells a reference the way Docker and containerd resolve it,
// through github.com/distribution/reference (v0.6.0 normalize.go:56
// ParseNormalizedNamed and :126 splitDockerDomain: a first component
// without '.' or ':' and not "localhost" is on docker.io, index.docker.io
// is docker.io, a docker.io name of one component is in library/; :230
// TagNameOnly adds the implicit :latest to a reference with neither tag
// nor digest). A string that is no
// reference is returned as it is.
func Normalize(ref string) string {
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return ref
	}
	return reference.TagNameOnly(named).String()
}
