package daggerbuild

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// EngineConfig is what the rehearsal sets in the engine's engine.json
// (engine/config/config.go:23-35 and RegistryConfig at :85-90 @v0.21.8:
// "registries" → host → "mirrors", "http").
type EngineConfig struct {
	LogLevel string
	// Mirrors maps a registry host ("docker.io") to mirror hosts
	// ("172.17.0.1:5000"), asked in order before the registry itself.
	Mirrors map[string][]string
	// HTTP are registry or mirror hosts spoken to in plain HTTP.
	HTTP []string
	// GC sets the garbage collector's space parameters ("gc" →
	// "reservedSpace", "maxUsedSpace", engine/config/config.go:92-139
	// @v0.21.8); empty keeps the engine's defaults.
	GC GCSpace
}

// GCSpace holds DiskSpace values as engine.json takes them: bytes with a
// unit ("40GB") or a share of the disk ("20%"), parsed by
// internal/buildkit/cmd/buildkitd/config/gcpolicy.go:46-67 @v0.21.8.
type GCSpace struct {
	// ReservedSpace is cache the collector never reclaims.
	ReservedSpace string `json:"reservedSpace,omitempty"`
	// MaxUsedSpace is the cache above which the collector prunes.
	MaxUsedSpace string `json:"maxUsedSpace,omitempty"`
}

type registryJSON struct {
	Mirrors []string `json:"mirrors,omitempty"`
	HTTP    *bool    `json:"http,omitempty"`
}

// ParseMirror reads a --mirror value "REGISTRY=MIRROR[,MIRROR…]".
func ParseMirror(s string) (string, []string, error) {
	reg, list, ok := strings.Cut(s, "=")
	if !ok || reg == "" || list == "" {
		return "", nil, fmt.Errorf("mirror %q: want REGISTRY=MIRROR[,MIRROR…], e.g. docker.io=172.17.0.1:5000", s)
	}
	var mirrors []string
	for _, m := range strings.Split(list, ",") {
		if m = strings.TrimSpace(m); m == "" || strings.Contains(m, "://") {
			return "", nil, fmt.Errorf("mirror %q: a mirror is HOST[:PORT][/PATH] without scheme (plain HTTP is asked with --http HOST)", s)
		}
		mirrors = append(mirrors, m)
	}
	return reg, mirrors, nil
}

// JSON renders engine.json. A mirror host gets its own registries entry
// when it is in HTTP: the engine applies a mirror's own entry, else the
// origin registry's (engine/server/registryhosts.go:41-45 @v0.21.8), and
// the origin must stay HTTPS.
func (c EngineConfig) JSON() ([]byte, error) {
	regs := map[string]*registryJSON{}
	entry := func(h string) *registryJSON {
		if regs[h] == nil {
			regs[h] = &registryJSON{}
		}
		return regs[h]
	}
	hosts := make([]string, 0, len(c.Mirrors))
	for h := range c.Mirrors {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	for _, h := range hosts {
		entry(h).Mirrors = append([]string(nil), c.Mirrors[h]...)
	}
	yes := true
	for _, h := range c.HTTP {
		entry(h).HTTP = &yes
	}
	var gc *GCSpace
	if c.GC != (GCSpace{}) {
		gc = &c.GC
	}
	out := struct {
		LogLevel   string                   `json:"logLevel,omitempty"`
		GC         *GCSpace                 `json:"gc,omitempty"`
		Registries map[string]*registryJSON `json:"registries,omitempty"`
	}{c.LogLevel, gc, regs}
	if len(regs) == 0 {
		out.Registries = nil
	}
	b, err := json.MarshalIndent(out, "", "  ")
	return append(b, '\n'), err
}

// RehearsalGC is the rehearsal engine's collector: it keeps up to 40 GB of
// cache and prunes only what grows past 60 GB, whatever the free disk.
// Upstream's defaults (engine/server/gc.go:377-386,430-433 @v0.21.8:
// reserve 10% capped at 10 GB, prune below 20% free) pruned 8.35 GB —
// labctl's and helm's builds among it — right after a cold call on this
// 252 GB disk with 29 GB free (ci/hack/rehearsal/testdata/findings/2026-12-06-dagger-first-runs).
// A minFreeSpace prunes too: below it, pruneTargetBytes (dagql/cache_prune.go:579-611
// @v0.21.8) asks for the missing free space whatever reservedSpace says, and
// one candidate frees every result only it holds (applyCandidate, :361-378),
// so a 1.36 GB target removed the call's whole 14.09 GB tree once the lab in
// the DinD service filled the disk (ci/hack/rehearsal/testdata/findings/2026-12-06-dagger-disk).
// So free space is not the collector's business here: `rehearse dagger run`
// checks it before the calls (daggerrun checkDisk).
var RehearsalGC = GCSpace{ReservedSpace: "40GB", MaxUsedSpace: "60GB"}
