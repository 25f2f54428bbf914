package registry

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// bridge is the private daemon's default bridge, whose address is the
// gateway its containers reach the namespace at.
const bridge = "docker0"

// Gateway is the bridge's IPv4 address inside the namespace at nsPath.
// dockerd 20.10's default bridge reports no gateway in `docker network
// inspect` (its IPAM config holds only the subnet), so the interface is
// asked.
func Gateway(ctx context.Context, nsPath string) (string, error) {
	out, err := exec.CommandContext(ctx, "nsenter", "--net="+nsPath, "ip", "-4", "-o", "addr", "show", "dev", bridge).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("address of %s in %s (nsenter ip addr): %w: %s", bridge, nsPath, err, strings.TrimSpace(string(out)))
	}
	return parseGateway(string(out))
}

// parseGateway reads the first "inet A/LEN" of `ip -4 -o addr show`.
func parseGateway(out string) (string, error) {
	f := strings.Fields(out)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "inet" {
			addr, _, _ := strings.Cut(f[i+1], "/")
			return addr, nil
		}
	}
	return "", fmt.Errorf("no IPv4 address on %s in %q", bridge, strings.TrimSpace(out))
}
