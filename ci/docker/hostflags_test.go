package docker

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// recordedInfo is `docker info --format '{{json .}}'` of this machine's
// daemon (Docker 20.10.24, storage driver fuse-overlayfs, no userns-remap,
// not rootless), recorded verbatim in testdata. The other hosts are that
// recording with one field edited to the value kind v0.33.0 matches.
func recordedInfo(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/docker-info-20.10.24-fuse-overlayfs.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// edited returns the recorded info with top-level fields replaced.
func edited(t *testing.T, raw []byte, fields map[string]any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range fields {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestKindNodeHostFlags(t *testing.T) {
	raw := recordedInfo(t)
	proxy := ProxyInputs{
		Subnets: []string{"172.18.0.0/16", "fc00:f853:ccd:e793::/64"}, NodeNames: []string{"gpu-lab-control-plane", "gpu-lab-tenant-a-worker"},
		ClusterCIDRs: []string{"10.96.0.0/16", "10.100.0.0/16"},
	}
	base := []string{"run", "--detach", "--tty", "--net", "kind", "--hostname", "w", "--name", "w", "--privileged",
		"--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined",
		"--tmpfs", "/tmp", "--tmpfs", "/run", "--volume", "/var", "--volume", "/lib/modules:/lib/modules:ro"}
	tail := []string{"--restart=on-failure:1", "--init=false", "--cgroupns=private"}
	passEnv := []string{"--env", "KIND_EXPERIMENTAL_CONTAINERD_SNAPSHOTTER", "img"}
	join := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	noProxy := "172.18.0.0/16,fc00:f853:ccd:e793::/64,corp.example,10.96.0.0/16,10.100.0.0/16,gpu-lab-control-plane," +
		"gpu-lab-tenant-a-worker,.svc,.svc.cluster,.svc.cluster.local"
	for _, tt := range []struct {
		name string
		info []byte
		env  map[string]string
		want []string
	}{
		{"recorded host: nothing added", raw, nil, join(base, tail, passEnv)},
		{"userns-remap", edited(t, raw, map[string]any{"SecurityOptions": []string{"name=seccomp,profile=default", "name=userns"}}), nil,
			join(base, tail, []string{"--userns=host"}, passEnv)},
		{"rootless: /dev/fuse, never /dev/mapper", edited(t, raw, map[string]any{"Driver": "btrfs",
			"SecurityOptions": []string{"name=seccomp,profile=default", "name=rootless"}}), nil,
			join(base, tail, []string{"--device", "/dev/fuse"}, passEnv)},
		{"btrfs driver: /dev/mapper", edited(t, raw, map[string]any{"Driver": "btrfs"}), nil,
			join(base, []string{"--volume", "/dev/mapper:/dev/mapper"}, tail, passEnv)},
		{"overlay2 on xfs: /dev/mapper", edited(t, raw, map[string]any{"Driver": "overlay2",
			"DriverStatus": [][]string{{"Backing Filesystem", "xfs"}, {"Supports d_type", "true"}}}), nil,
			join(base, []string{"--volume", "/dev/mapper:/dev/mapper"}, tail, passEnv)},
		{"overlay2 on extfs: nothing", edited(t, raw,
			map[string]any{"Driver": "overlay2", "DriverStatus": [][]string{{"Backing Filesystem", "extfs"}}}), nil,
			join(base, tail, passEnv)},
		{"proxy in the environment", raw, map[string]string{"HTTPS_PROXY": "http://proxy:3128", "no_proxy": "corp.example"},
			join(base, tail, []string{"--env", "HTTPS_PROXY=http://proxy:3128", "--env", "NO_PROXY=" + noProxy,
				"--env", "https_proxy=http://proxy:3128", "--env", "no_proxy=" + noProxy}, passEnv)},
		{"only no_proxy set: still a proxy setting", raw, map[string]string{"NO_PROXY": "corp.example"},
			join(base, tail, []string{"--env", "NO_PROXY=" + noProxy, "--env", "no_proxy=" + noProxy}, passEnv)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			info, err := parseDaemonInfo(tt.info)
			if err != nil {
				t.Fatal(err)
			}
			p := proxy
			p.Getenv = env(tt.env)
			spec := KindNodeSpec("w", "img", "kind", nil, KindNodeHostFor(info, p))
			if got := RunArgs(spec); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestNodeProxyEnvUpperCaseFirst(t *testing.T) {
	got := nodeProxyEnv(ProxyInputs{Getenv: env(map[string]string{"HTTP_PROXY": "http://upper", "http_proxy": "http://lower"})})
	if got["HTTP_PROXY"] != "http://upper" || got["http_proxy"] != "http://upper" {
		t.Errorf("HTTP_PROXY = %q, http_proxy = %q; want the upper-case value in both", got["HTTP_PROXY"], got["http_proxy"])
	}
	if n := got["NO_PROXY"]; !strings.HasSuffix(n, ".svc,.svc.cluster,.svc.cluster.local") {
		t.Errorf("NO_PROXY = %q", n)
	}
	if got := nodeProxyEnv(ProxyInputs{Getenv: env(nil), Subnets: []string{"172.18.0.0/16"}}); len(got) != 0 {
		t.Errorf("no proxy set: env = %v, want none", got)
	}
}

func TestRecordedDaemonInfo(t *testing.T) {
	info, err := parseDaemonInfo(recordedInfo(t))
	if err != nil {
		t.Fatal(err)
	}
	if info.Driver != "fuse-overlayfs" || info.UsernsRemap() || info.rootless() || info.needsDevMapper() {
		t.Errorf("recorded info = %+v", info)
	}
	if KindNodeHostFor(info, ProxyInputs{Getenv: env(nil)}).Describe() != "none" {
		t.Error("Describe of a plain host")
	}
}
