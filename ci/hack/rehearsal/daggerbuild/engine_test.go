package daggerbuild

import (
	"os"
	"strings"
	"testing"
)

func TestGatewayOf(t *testing.T) {
	recorded, err := os.ReadFile("testdata/bridge-ipam-dockerd-20.10.24.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, in, want string
	}{
		{"dockerd 20.10.24's default bridge (recorded): subnet only", string(recorded), "172.17.0.1"},
		{"a gateway listed wins", `[{"Subnet":"172.18.0.0/16","Gateway":"172.18.0.254"}]`, "172.18.0.254"},
		{"IPv6 subnet first, then IPv4", `[{"Subnet":"fc00::/64"},{"Subnet":"10.1.2.0/24"}]`, "10.1.2.1"},
		{"nothing usable", `[]`, ""},
	} {
		got, err := GatewayOf([]byte(c.in))
		if c.want == "" {
			if err == nil {
				t.Errorf("%s: got %q, want an error", c.name, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: GatewayOf = %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

func TestEngineRunArgs(t *testing.T) {
	args := strings.Join(EngineRunArgs("/d/engine.json", "http://172.17.0.1:5001"), " ")
	for _, want := range []string{
		"--privileged", "--name " + EngineContainer, "--label " + engineLabel,
		"-v /d/engine.json:/etc/dagger/engine.json:ro",
		"-e _DAGGER_ENGINE_SYSTEMENV_GOPROXY=http://172.17.0.1:5001",
	} {
		if !strings.Contains(args, want) {
			t.Errorf("engine run args %q lack %q", args, want)
		}
	}
	if !strings.HasSuffix(args, " "+EngineImageRef) {
		t.Errorf("engine run args %q do not end with the image", args)
	}
	if strings.Contains(strings.Join(EngineRunArgs("/d/engine.json", ""), " "), GoProxyEnv) {
		t.Error("no GOPROXY given, yet the engine gets one")
	}
}
