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
	out := struct {
		LogLevel   string                   `json:"logLevel,omitempty"`
		Registries map[string]*registryJSON `json:"registries,omitempty"`
	}{c.LogLevel, regs}
	if len(regs) == 0 {
		out.Registries = nil
	}
	b, err := json.MarshalIndent(out, "", "  ")
	return append(b, '\n'), err
}
