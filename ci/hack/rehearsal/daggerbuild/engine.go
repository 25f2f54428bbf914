package daggerbuild

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// EngineContainer is the engine's container name on the private daemon.
const EngineContainer = "gpu-lab-dagger-engine"

// engineLabel marks the containers and volumes engine up made, so engine
// down removes only those.
const engineLabel = "org.gpu-lab.rehearsal.dagger-engine=1"

// GoProxyEnv hands GOPROXY to the engine's Go SDK containers: the engine
// passes a system variable to a container that asks for it only from its
// own _DAGGER_ENGINE_SYSTEMENV_<NAME> (engine/engineutil/
// executor_spec.go:944-953 @v0.21.8), and the Go SDK asks for GOPROXY
// (core/sdk/go_sdk.go:904 @v0.21.8).
const GoProxyEnv = "_DAGGER_ENGINE_SYSTEMENV_GOPROXY"

// RunnerHost is the _EXPERIMENTAL_DAGGER_RUNNER_HOST value
// (cmd/dagger/engine.go:28 @v0.21.8) naming the engine container: the CLI
// runs `docker exec -i NAME buildctl dial-stdio` on the DOCKER_HOST
// daemon (engine/client/drivers/container.go:28,197 @v0.21.8).
func RunnerHost(name string) string { return "docker-container://" + name }

// Runner is what engine up needs of the private daemon (docker.CLI).
type Runner interface {
	Run(ctx context.Context, args ...string) ([]byte, error)
}

// EngineOptions configure engine up.
type EngineOptions struct {
	Log     *slog.Logger
	Archive string // the engine image's docker-archive
	Config  EngineConfig
	// GoProxy is the GOPROXY the Go SDK's containers get ("" for none).
	GoProxy string
	// StateDir holds the rendered engine.json.
	StateDir string
}

// EngineRunArgs are the `docker run` arguments of the engine container:
// privileged, as upstream's CLI starts it (engine/client/drivers/
// container.go:275-293 @v0.21.8), its state in a volume of its own, the
// rendered engine.json mounted where the engine reads it
// (engine/config/path.go:4 @v0.21.8).
func EngineRunArgs(configFile, goproxy string) []string {
	args := []string{
		"run", "-d", "--privileged", "--name", EngineContainer,
		"--label", engineLabel,
		"--mount", "type=volume,source=" + EngineContainer + "-state,target=/var/lib/dagger,volume-label=" + engineLabel,
		"-v", configFile + ":/etc/dagger/engine.json:ro",
	}
	if goproxy != "" {
		args = append(args, "-e", GoProxyEnv+"="+goproxy)
	}
	return append(args, EngineImageRef)
}

// EngineUp loads the engine image into the daemon d, starts the engine
// container and waits until its socket answers; it returns the runner
// host to use.
func EngineUp(ctx context.Context, d Runner, o EngineOptions) (string, error) {
	if out, err := d.Run(ctx, "ps", "-a", "-q", "--filter", "name=^"+EngineContainer+"$"); err == nil && strings.TrimSpace(string(out)) != "" {
		return "", fmt.Errorf("a container %s exists already on this daemon: run `rehearse dagger engine down` first", EngineContainer)
	}
	start := time.Now()
	if out, err := d.Run(ctx, "load", "-i", o.Archive); err != nil {
		return "", fmt.Errorf("load the engine image %s: %w: %s (build it with `rehearse dagger build`)", o.Archive, err, out)
	}
	o.Log.Info("loaded the engine image", "image", EngineImageRef, "took", time.Since(start).Round(time.Second).String())
	cfg, err := o.Config.JSON()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(o.StateDir, 0o755); err != nil {
		return "", err
	}
	cfgFile := filepath.Join(o.StateDir, "engine.json")
	if err := os.WriteFile(cfgFile, cfg, 0o644); err != nil {
		return "", err
	}
	if out, err := d.Run(ctx, EngineRunArgs(cfgFile, o.GoProxy)...); err != nil {
		return "", fmt.Errorf("start the engine: %w: %s", err, out)
	}
	for {
		_, err := d.Run(ctx, "exec", EngineContainer, "test", "-S", "/run/dagger/engine.sock")
		if err == nil {
			break
		}
		if time.Since(start) > 2*time.Minute {
			logs, _ := d.Run(ctx, "logs", "--tail", "30", EngineContainer)
			return "", fmt.Errorf("the engine's socket /run/dagger/engine.sock did not appear in 2 min; its log ends with:\n%s", logs)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(time.Second):
		}
	}
	o.Log.Info("engine up", "container", EngineContainer, "took", time.Since(start).Round(time.Second).String())
	return RunnerHost(EngineContainer), nil
}

// EngineDown removes the engine container and its state volume, only
// when they carry engine up's label.
func EngineDown(ctx context.Context, d Runner) error {
	list := map[string][]string{"container": {"ps", "-a", "-q"}, "volume": {"volume", "ls", "-q"}}
	for _, kind := range []string{"container", "volume"} {
		out, err := d.Run(ctx, append(list[kind], "--filter", "label="+engineLabel)...)
		if err != nil {
			return fmt.Errorf("list the engine's %ss: %w: %s", kind, err, out)
		}
		for _, id := range strings.Fields(string(out)) {
			args := []string{"rm", "-f", id}
			if kind == "volume" {
				args = []string{"volume", "rm", id}
			}
			if out, err := d.Run(ctx, args...); err != nil {
				return fmt.Errorf("remove the engine's %s %s: %w: %s", kind, id, err, out)
			}
		}
	}
	return nil
}

// BridgeGateway is the daemon's default bridge gateway (docker0), where
// services of the namespace (the Go proxy, the registry) listen.
func BridgeGateway(ctx context.Context, d Runner) (string, error) {
	out, err := d.Run(ctx, "network", "inspect", "bridge", "--format", "{{json .IPAM.Config}}")
	if err != nil {
		return "", fmt.Errorf("the daemon's bridge gateway: %w: %s", err, out)
	}
	return GatewayOf(out)
}

// GatewayOf reads the gateway from a bridge network's IPAM config (JSON).
// dockerd 20.10 lists only the default bridge's subnet; its gateway is
// then the subnet's first address, which libnetwork's default IPAM gives
// docker0 (testdata/bridge-ipam-dockerd-20.10.24.json).
func GatewayOf(ipamConfig []byte) (string, error) {
	var cfgs []struct{ Subnet, Gateway string }
	if err := json.Unmarshal(ipamConfig, &cfgs); err != nil {
		return "", fmt.Errorf("the bridge network's IPAM config %q: %w", ipamConfig, err)
	}
	for _, c := range cfgs {
		if c.Gateway != "" {
			return c.Gateway, nil
		}
		if p, err := netip.ParsePrefix(c.Subnet); err == nil && p.Addr().Is4() {
			return p.Masked().Addr().Next().String(), nil
		}
	}
	return "", fmt.Errorf("the bridge network has neither an IPv4 gateway nor subnet: %s", ipamConfig)
}
