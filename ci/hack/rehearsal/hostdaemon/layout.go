package hostdaemon

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Layout is where one private daemon keeps everything, all under Dir.
type Layout struct{ Dir string }

// DefaultDir is the state directory when none is given:
// ~/.cache/gpu-lab/rehearsal/daemon, outside the repository.
func DefaultDir() (string, error) {
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for the rehearsal daemon (set HOME or pass a state directory): %w", err)
	}
	return filepath.Join(c, "gpu-lab", "rehearsal", "daemon"), nil
}

func (l Layout) dockerSocket() string     { return filepath.Join(l.Dir, "docker.sock") }
func (l Layout) dataRoot() string         { return filepath.Join(l.Dir, "data-root") }
func (l Layout) execRoot() string         { return filepath.Join(l.Dir, "exec-root") }
func (l Layout) dockerPidFile() string    { return filepath.Join(l.Dir, "dockerd.pid") }
func (l Layout) daemonJSON() string       { return filepath.Join(l.Dir, "daemon.json") }
func (l Layout) containerdDir() string    { return filepath.Join(l.Dir, "containerd") }
func (l Layout) containerdSocket() string { return filepath.Join(l.containerdDir(), "containerd.sock") }
func (l Layout) containerdTOML() string   { return filepath.Join(l.Dir, "containerd.toml") }
func (l Layout) LogDir() string           { return filepath.Join(l.Dir, "log") }
func (l Layout) DockerdLog() string       { return filepath.Join(l.LogDir(), "dockerd.log") }
func (l Layout) containerdLog() string    { return filepath.Join(l.LogDir(), "containerd.log") }
func (l Layout) wrapperPath() string      { return filepath.Join(l.Dir, "bin", "runc-capfilter") }
func (l Layout) RecordFile() string       { return filepath.Join(l.Dir, "host-changes.json") }
func (l Layout) marker() string           { return filepath.Join(l.Dir, ".gpu-lab-rehearsal-daemon") }
func (l Layout) notifySocket(what string) string {
	return filepath.Join(l.Dir, what+".notify")
}

// ownPaths are the paths Start makes in the directory, the data root and
// marker apart: Stop removes these and nothing else.
func (l Layout) ownPaths() []string {
	return []string{l.dockerSocket(), l.execRoot(), l.dockerPidFile(), l.daemonJSON(), l.containerdDir(), l.containerdTOML(),
		l.LogDir(), filepath.Dir(l.wrapperPath()), l.notifySocket("containerd"), l.notifySocket("dockerd"), l.RecordFile()}
}

// mountRoots are the layout's directories the daemons mount below (overlay
// layers, the containers' namespaces, the data root's own bind).
func (l Layout) mountRoots() []string { return []string{l.dataRoot(), l.execRoot(), l.containerdDir()} }

// DockerHost is the DOCKER_HOST value that reaches the daemon. A unix
// socket is a file: it is reachable from the host's network namespace
// although the daemon runs in its own.
func (l Layout) DockerHost() string { return "unix://" + l.dockerSocket() }

// RuntimeName is the name under which daemon.json registers the wrapper and
// makes it the default runtime.
const RuntimeName = "gpu-lab-capfilter"

// daemonJSON renders dockerd's configuration file. Keys are those of
// moby v20.10.24 daemon/config/config.go (data-root :156, exec-root :157,
// pidfile :153, hosts :205, log-level :206, storage-driver :148,
// containerd :251), daemon/config/config_common_unix.go (runtimes :15,
// default-runtime :16) and api/types/types.go:518-520 (a runtime's "path";
// with no runtimeArgs, dockerd passes the path to containerd's runc shim as
// its BinaryName: daemon/runtime_unix.go defaultV2ShimConfig).
//
// cgroup-parent (daemon/config/config_unix.go:28) puts the containers'
// cgroups under /CGROUPPARENT instead of the /docker the machine's own
// Docker uses, so that Stop can tell whether any of ours is left.
func daemonJSON(l Layout, storageDriver, wrapper, cgroupParent string) ([]byte, error) {
	cfg := map[string]any{
		"data-root":       l.dataRoot(),
		"exec-root":       l.execRoot(),
		"pidfile":         l.dockerPidFile(),
		"hosts":           []string{l.DockerHost()},
		"containerd":      l.containerdSocket(),
		"storage-driver":  storageDriver,
		"default-runtime": RuntimeName,
		"runtimes":        map[string]any{RuntimeName: map[string]string{"path": wrapper}},
		"log-level":       "info",
		"cgroup-parent":   "/" + cgroupParent,
	}
	return json.MarshalIndent(cfg, "", "  ")
}

// containerdTOML renders containerd's configuration: every path of its own
// (the defaults are /var/lib/containerd, /run/containerd and /opt/containerd
// — `containerd config default` of containerd 1.6.20), and the CRI plugin
// off as dockerd's own managed containerd has it (disabled_plugins = ["cri"]
// in the containerd.toml dockerd 20.10.24 writes): Docker does not use it.
func containerdTOML(l Layout) []byte {
	d := l.containerdDir()
	q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
	return []byte(strings.Join([]string{
		"version = 2",
		"root = " + q(filepath.Join(d, "root")),
		"state = " + q(filepath.Join(d, "state")),
		`disabled_plugins = ["io.containerd.grpc.v1.cri"]`,
		"",
		"[grpc]",
		"  address = " + q(l.containerdSocket()),
		"",
		"[ttrpc]",
		"  address = " + q(l.containerdSocket()+".ttrpc"),
		"",
		"[debug]",
		`  address = ""`,
		"",
		`[plugins."io.containerd.internal.v1.opt"]`,
		"  path = " + q(filepath.Join(d, "opt")),
		"",
	}, "\n"))
}
