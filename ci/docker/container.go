package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/netip"
	"sort"
	"strings"
)

// Container is the part of `docker container inspect` the lab reads.
type Container struct {
	ID    string `json:"Id"`
	Name  string `json:"Name"`
	State struct {
		Status   string `json:"Status"`
		Running  bool   `json:"Running"`
		ExitCode int    `json:"ExitCode"`
	} `json:"State"`
	Config struct {
		Image    string            `json:"Image"`
		Hostname string            `json:"Hostname"`
		Labels   map[string]string `json:"Labels"`
	} `json:"Config"`
	NetworkSettings struct {
		Networks map[string]Endpoint `json:"Networks"`
	} `json:"NetworkSettings"`
}

// Endpoint is a container's attachment to one network.
type Endpoint struct {
	IPAddress         string `json:"IPAddress"`
	IPPrefixLen       int    `json:"IPPrefixLen"`
	GlobalIPv6Address string `json:"GlobalIPv6Address"`
}

// ContainerIPv4 returns the container's IPv4 address on network. Only the
// IPv4 field counts, and it must parse as IPv4, so a dual-stack attachment
// never yields an IPv6 or concatenated address.
func ContainerIPv4(c Container, network string) (netip.Addr, error) {
	ep, ok := c.NetworkSettings.Networks[network]
	if !ok {
		var names []string
		for n := range c.NetworkSettings.Networks {
			names = append(names, n)
		}
		sort.Strings(names)
		return netip.Addr{}, fmt.Errorf("container %s is not on network %s (it is on: %s)",
			strings.TrimPrefix(c.Name, "/"), network, strings.Join(names, ", "))
	}
	a, err := netip.ParseAddr(strings.TrimSpace(ep.IPAddress))
	if err != nil || !a.Is4() {
		return netip.Addr{}, fmt.Errorf("container %s has no IPv4 address on network %s (IPv4 field %q, IPv6 %q): "+
			"the network needs an IPv4 subnet", strings.TrimPrefix(c.Name, "/"), network, ep.IPAddress, ep.GlobalIPv6Address)
	}
	return a, nil
}

// parseContainerInspect decodes `docker container inspect` output for one
// container.
func parseContainerInspect(data []byte) (Container, error) {
	var cs []Container
	if err := json.Unmarshal(data, &cs); err != nil {
		return Container{}, fmt.Errorf("decode docker container inspect: %w", err)
	}
	if len(cs) != 1 {
		return Container{}, fmt.Errorf("docker container inspect returned %d containers, want 1", len(cs))
	}
	return cs[0], nil
}

// RunSpec describes a detached container.
type RunSpec struct {
	Name       string
	Image      string
	Network    string
	Hostname   string
	Privileged bool
	// SecurityOpts are --security-opt values.
	SecurityOpts []string
	// Tmpfs are mount points for --tmpfs.
	Tmpfs []string
	// Volumes are --volume values (anonymous "/var" or "host:ctr[:ro]").
	Volumes []string
	// Restart is a --restart policy, e.g. "on-failure:1".
	Restart string
	// NoInit passes --init=false (kind's entrypoint must be PID 1).
	NoInit bool
	// CgroupNS is --cgroupns (kind needs "private").
	CgroupNS string
	// Userns is --userns ("host" where the daemon remaps user namespaces).
	Userns string
	// Devices are --device values.
	Devices []string
	TTY     bool
	Env     map[string]string
	// PassEnv are --env names without a value: docker passes the CLI's
	// own value when it has one.
	PassEnv []string
	Labels  map[string]string
	// Cmd overrides the image's command.
	Cmd []string
}

// RunArgs is the `docker run --detach` command line for spec.
func RunArgs(s RunSpec) []string {
	args := []string{"run", "--detach"}
	if s.TTY {
		args = append(args, "--tty")
	}
	if s.Network != "" {
		args = append(args, "--net", s.Network)
	}
	if s.Hostname != "" {
		args = append(args, "--hostname", s.Hostname)
	}
	args = append(args, "--name", s.Name)
	if s.Privileged {
		args = append(args, "--privileged")
	}
	for _, o := range s.SecurityOpts {
		args = append(args, "--security-opt", o)
	}
	for _, t := range s.Tmpfs {
		args = append(args, "--tmpfs", t)
	}
	for _, v := range s.Volumes {
		args = append(args, "--volume", v)
	}
	if s.Restart != "" {
		args = append(args, "--restart="+s.Restart)
	}
	if s.NoInit {
		args = append(args, "--init=false")
	}
	if s.CgroupNS != "" {
		args = append(args, "--cgroupns="+s.CgroupNS)
	}
	if s.Userns != "" {
		args = append(args, "--userns="+s.Userns)
	}
	for _, d := range s.Devices {
		args = append(args, "--device", d)
	}
	for _, k := range sortedKeys(s.Env) {
		args = append(args, "--env", k+"="+s.Env[k])
	}
	for _, k := range s.PassEnv {
		args = append(args, "--env", k)
	}
	for _, k := range sortedKeys(s.Labels) {
		args = append(args, "--label", k+"="+s.Labels[k])
	}
	args = append(args, s.Image)
	return append(args, s.Cmd...)
}

// KindNodeSpec is a kind-style node container: the flags kind v0.33.0's
// docker provider uses for its own nodes (commonArgs and runArgsForNode in
// sigs.k8s.io/kind@v0.33.0 pkg/cluster/internal/providers/docker/
// provision.go), so a tenant worker behaves like a kind node (systemd as
// PID 1, private cgroup namespace, writable /var, host kernel modules), with
// the additions kind makes for the host (host, from KindNodeHostFor).
// KIND_EXPERIMENTAL_CONTAINERD_SNAPSHOTTER is passed through to the
// entrypoint as kind does. kind's IPv6 sysctls are left out: the lab's
// tenants are IPv4 only.
func KindNodeSpec(name, image, network string, labels map[string]string, host KindNodeHost) RunSpec {
	s := RunSpec{
		Name:         name,
		Image:        image,
		Network:      network,
		Hostname:     name,
		Privileged:   true,
		SecurityOpts: []string{"seccomp=unconfined", "apparmor=unconfined"},
		Tmpfs:        []string{"/tmp", "/run"},
		Volumes:      []string{"/var", "/lib/modules:/lib/modules:ro"},
		Restart:      "on-failure:1",
		NoInit:       true,
		CgroupNS:     "private",
		TTY:          true,
		Env:          host.ProxyEnv,
		PassEnv:      []string{"KIND_EXPERIMENTAL_CONTAINERD_SNAPSHOTTER"},
		Labels:       labels,
	}
	if host.UsernsHost {
		s.Userns = "host"
	}
	if host.DevMapper {
		s.Volumes = append(s.Volumes, "/dev/mapper:/dev/mapper")
	}
	if host.Fuse {
		s.Devices = append(s.Devices, "/dev/fuse")
	}
	return s
}

// RunContainer starts a detached container and returns its ID.
func (c CLI) RunContainer(ctx context.Context, s RunSpec) (string, error) {
	out, err := c.Run(ctx, RunArgs(s)...)
	if err != nil {
		return "", fmt.Errorf("start container %s: %w", s.Name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// InspectContainer reads one container.
func (c CLI) InspectContainer(ctx context.Context, name string) (Container, error) {
	out, err := c.Run(ctx, "container", "inspect", name)
	if err != nil {
		return Container{}, fmt.Errorf("inspect container %s: %w", name, err)
	}
	return parseContainerInspect(out)
}

// ContainerExists reports whether a container of that name exists (in any
// state).
func (c CLI) ContainerExists(ctx context.Context, name string) (bool, error) {
	_, err := c.InspectContainer(ctx, name)
	if IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// Exec runs a command in a running container and returns its stdout; stdin
// is passed when non-nil.
func (c CLI) Exec(ctx context.Context, container string, stdin io.Reader, cmd ...string) ([]byte, error) {
	args := []string{"exec"}
	if stdin != nil {
		args = append(args, "-i")
	}
	args = append(append(args, container), cmd...)
	out, err := c.RunIO(ctx, stdin, nil, args...)
	if err != nil {
		return out, fmt.Errorf("exec in %s: %w", container, err)
	}
	return out, nil
}

// RemoveContainer force-removes a container and its anonymous volumes; a
// missing container is not an error.
func (c CLI) RemoveContainer(ctx context.Context, name string) error {
	if _, err := c.Run(ctx, "rm", "--force", "--volumes", name); err != nil && !IsNotFound(err) {
		return fmt.Errorf("remove container %s: %w", name, err)
	}
	return nil
}

// ListContainers returns the names of containers carrying label k=v.
func (c CLI) ListContainers(ctx context.Context, label string) ([]string, error) {
	out, err := c.Run(ctx, "ps", "--all", "--filter", "label="+label, "--format", "{{.Names}}")
	if err != nil {
		return nil, fmt.Errorf("list containers with label %s: %w", label, err)
	}
	return strings.Fields(string(out)), nil
}

// Logs returns a container's combined log.
func (c CLI) Logs(ctx context.Context, name string) ([]byte, error) {
	cmd := []string{"logs", name}
	var buf strings.Builder
	_, err := c.RunIO(ctx, nil, &buf, cmd...)
	return []byte(buf.String()), err
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
