package docker

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// DaemonInfo is the part of `docker info --format '{{json .}}'` that decides
// a kind node's host-dependent `docker run` flags, how images are saved
// (imagestore.go) and what preflight checks.
type DaemonInfo struct {
	// Driver is the storage driver ("overlay2", "btrfs", "zfs", ...).
	Driver string `json:"Driver"`
	// DriverStatus holds pairs such as ["Backing Filesystem", "extfs"].
	DriverStatus [][]string `json:"DriverStatus"`
	// SecurityOptions are comma-separated option lists such as
	// "name=seccomp,profile=default", "name=userns", "name=rootless".
	SecurityOptions []string `json:"SecurityOptions"`
	// CgroupVersion is "1" or "2", the host's cgroup hierarchy (moby
	// docker-v29.7.2 api/types/system/info.go:39, set in
	// daemon/info_unix.go:28-31; also in 20.10.24). Empty from older daemons.
	CgroupVersion string `json:"CgroupVersion"`
}

// parseDaemonInfo decodes `docker info --format '{{json .}}'` output.
func parseDaemonInfo(data []byte) (DaemonInfo, error) {
	var i DaemonInfo
	if err := json.Unmarshal(data, &i); err != nil {
		return DaemonInfo{}, fmt.Errorf("decode docker info: %w", err)
	}
	return i, nil
}

// Info reads the daemon's info.
func (c CLI) Info(ctx context.Context) (DaemonInfo, error) {
	out, err := c.Run(ctx, "info", "--format", "{{json .}}")
	if err != nil {
		return DaemonInfo{}, fmt.Errorf("docker info: %w", err)
	}
	return parseDaemonInfo(out)
}

// UsernsRemap reports a daemon with userns-remap on: kind v0.33.0 looks
// for "name=userns" in SecurityOptions (usernsRemap in
// sigs.k8s.io/kind@v0.33.0 pkg/cluster/internal/providers/docker/util.go).
func (i DaemonInfo) UsernsRemap() bool {
	for _, o := range i.SecurityOptions {
		if strings.Contains(o, "name=userns") {
			return true
		}
	}
	return false
}

// rootless reports rootless Docker: a "name=rootless" field in one of the
// comma-separated SecurityOptions (kind v0.33.0 info() in
// pkg/cluster/internal/providers/docker/provider.go).
func (i DaemonInfo) rootless() bool {
	for _, o := range i.SecurityOptions {
		fields, err := csv.NewReader(strings.NewReader(o)).ReadAll()
		if err != nil {
			continue
		}
		for _, f := range fields {
			for _, ff := range f {
				if ff == "name=rootless" {
					return true
				}
			}
		}
	}
	return false
}

// needsDevMapper reports what kind v0.33.0's mountDevMapper (util.go)
// decides: mount /dev/mapper for the btrfs, zfs and devicemapper storage
// drivers, or a btrfs, zfs or xfs backing filesystem, except on rootless
// Docker, which cannot create device nodes.
func (i DaemonInfo) needsDevMapper() bool {
	if i.rootless() {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(i.Driver)) {
	case "btrfs", "zfs", "devicemapper":
		return true
	}
	for _, kv := range i.DriverStatus {
		if len(kv) == 2 && kv[0] == "Backing Filesystem" {
			switch strings.ToLower(kv[1]) {
			case "btrfs", "zfs", "xfs":
				return true
			}
			return false
		}
	}
	return false
}

// Proxy variables kind passes to its nodes (kind v0.33.0
// pkg/cluster/internal/providers/common/proxy.go), in both cases.
const (
	httpProxy  = "HTTP_PROXY"
	httpsProxy = "HTTPS_PROXY"
	noProxy    = "NO_PROXY"
)

// ProxyInputs is what a node's proxy variables are made of.
type ProxyInputs struct {
	// Getenv reads the caller's environment (os.Getenv).
	Getenv func(string) string
	// Subnets are the node network's subnets, NodeNames every node of the
	// lab: both reach each other directly.
	Subnets   []string
	NodeNames []string
	// ClusterCIDRs are the service and pod CIDRs the node's cluster uses.
	ClusterCIDRs []string
}

// nodeProxyEnv is kind v0.33.0's proxy environment for a node (GetProxyEnvs
// in common/proxy.go, getProxyEnv in docker/provision.go): HTTP_PROXY,
// HTTPS_PROXY and NO_PROXY from the caller's environment (upper case
// first, then lower case), each set in both cases; when any is set,
// NO_PROXY gains the cluster's CIDRs, the network's subnets, the node
// names and the in-cluster DNS suffixes, so node-to-node and in-cluster
// traffic (the kubelet to its API server, image pulls from a local
// registry) never goes through the proxy. Empty when no proxy is set.
//
// Not ported: kind v0.33.0 also reads the "proxies" of the Docker CLI's
// config.json when the environment names no proxy (proxyconfig.go). The
// docker CLI labctl runs sets those in the container by itself, but their
// NO_PROXY then lacks the lab's ranges: set the proxy in the environment.
func nodeProxyEnv(in ProxyInputs) map[string]string {
	env := map[string]string{}
	for _, name := range []string{httpProxy, httpsProxy, noProxy} {
		v := in.Getenv(name)
		if v == "" {
			v = in.Getenv(strings.ToLower(name))
		}
		if v != "" {
			env[name], env[strings.ToLower(name)] = v, v
		}
	}
	if len(env) == 0 {
		return env
	}
	var no []string
	no = append(no, in.Subnets...)
	if v := env[noProxy]; v != "" {
		no = append(no, v)
	}
	no = append(no, in.ClusterCIDRs...)
	no = append(no, in.NodeNames...)
	no = append(no, ".svc", ".svc.cluster", ".svc.cluster.local")
	joined := strings.Join(no, ",")
	env[noProxy], env[strings.ToLower(noProxy)] = joined, joined
	return env
}

// KindNodeHost holds the host-dependent additions kind v0.33.0 makes to a
// node's `docker run` (commonArgs and runArgsForNode in
// pkg/cluster/internal/providers/docker/provision.go).
type KindNodeHost struct {
	// UsernsHost: --userns=host where the daemon remaps user namespaces
	// (a privileged node cannot run in a remapped namespace).
	UsernsHost bool
	// DevMapper: --volume /dev/mapper:/dev/mapper on btrfs, zfs,
	// devicemapper or an xfs/btrfs/zfs backing filesystem.
	DevMapper bool
	// Fuse: --device /dev/fuse on rootless Docker, which does not pass
	// it with --privileged (the node then uses fuse-overlayfs).
	Fuse bool
	// ProxyEnv are the proxy variables (NodeProxyEnv).
	ProxyEnv map[string]string
}

// KindNodeHostFor decides the additions from the daemon's info and the
// proxy inputs.
func KindNodeHostFor(info DaemonInfo, proxy ProxyInputs) KindNodeHost {
	return KindNodeHost{
		UsernsHost: info.UsernsRemap(),
		DevMapper:  info.needsDevMapper(),
		Fuse:       info.rootless(),
		ProxyEnv:   nodeProxyEnv(proxy),
	}
}

// Describe names the additions in words, for plans and logs.
func (h KindNodeHost) Describe() string {
	var parts []string
	if h.UsernsHost {
		parts = append(parts, "--userns=host (userns-remap)")
	}
	if h.DevMapper {
		parts = append(parts, "/dev/mapper (btrfs/zfs/devicemapper/xfs storage)")
	}
	if h.Fuse {
		parts = append(parts, "/dev/fuse (rootless)")
	}
	if len(h.ProxyEnv) > 0 {
		var names []string
		for k := range h.ProxyEnv {
			names = append(names, k)
		}
		sort.Strings(names)
		parts = append(parts, "proxy variables "+strings.Join(names, ", "))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}
