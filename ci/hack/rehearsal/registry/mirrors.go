package registry

import (
	"fmt"
	"net"
	"strconv"

	"github.com/distribution/reference"
)

// RegistryConfig is one entry of the Dagger engine's engine.json
// "registries" map (dagger v0.21.8 engine/config/config.go:35 Registries,
// :85-90 RegistryConfig: "mirrors", "http", "insecure", "ca"). The engine
// launcher writes Mirrors' result there as it is.
type RegistryConfig struct {
	Mirrors   []string `json:"mirrors,omitempty"`
	PlainHTTP *bool    `json:"http,omitempty"`
}

// mirroredHosts are the registries the module's and the lab's images come
// from; each is mirrored under its own name in the registry.
var mirroredHosts = []string{"docker.io", "registry.k8s.io", "quay.io", "ghcr.io"}

// Addr is the registry as the daemon's containers reach it: the docker0
// gateway address of the private daemon's bridge, on Port.
func Addr(gateway string) string { return net.JoinHostPort(gateway, strconv.Itoa(Port)) }

// Mirrors is the engine's "registries" configuration that sends every pull
// from MirroredHosts to the registry at addr (host:port), over plain HTTP.
//
// A mirror may carry a path: the engine splits "ADDR/docker.io" into host
// ADDR and path /v2/docker.io (engine/server/registryhosts.go:42-53,
// extractMirrorHostAndPath :171-184), and containerd's resolver then asks
// for <path>/<repository>/manifests/<tag> with the repository relative to
// the origin host (containerd v2.2.3 core/remotes/docker/resolver.go:498,
// :529) — so docker.io/library/golang:1.26 is asked for as repository
// docker.io/library/golang of ADDR, the name Push gives it (mirrorRef).
// The mirror's own entry sets "http": the engine looks it up by the
// mirror's host (registryhosts.go:44-47) and uses plain HTTP only for
// localhost unless told (:94-101). Pulls the mirror cannot answer fall
// through to the origin, which is unreachable here: the pull fails there.
func Mirrors(addr string) map[string]RegistryConfig {
	yes := true
	out := map[string]RegistryConfig{addr: {PlainHTTP: &yes}}
	for _, h := range mirroredHosts {
		out[h] = RegistryConfig{Mirrors: []string{addr + "/" + h}}
	}
	return out
}

// mirrorRef is the name under which the registry at addr serves ref, as
// Mirrors makes the engine ask for it: ADDR/<origin host>/<path>, with
// ref's tag, or its digest when it has no tag.
func mirrorRef(addr, ref string) (string, error) {
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return "", fmt.Errorf("image reference %q: %w", ref, err)
	}
	name := addr + "/" + reference.Domain(named) + "/" + reference.Path(named)
	if t, ok := named.(reference.Tagged); ok {
		return name + ":" + t.Tag(), nil
	}
	if d, ok := named.(reference.Digested); ok {
		return name + "@" + d.Digest().String(), nil
	}
	return name + ":latest", nil
}
