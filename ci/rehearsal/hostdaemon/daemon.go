package hostdaemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// DefaultNetns is the network namespace's name when none is given.
const DefaultNetns = "gpu-lab-rehearsal"

// Options says where the daemon lives and what it runs.
type Options struct {
	// Dir is the state directory (DefaultDir when empty).
	Dir string
	// Netns names the network namespace Start creates (DefaultNetns when empty).
	Netns string
	// Wrapper is a runc-capfilter binary; when empty Start builds one from
	// the checkout it runs in (BuildWrapper).
	Wrapper string
	Log     *slog.Logger
}

// State is what Start records in the state directory for Stop.
type State struct {
	Netns         string `json:"netns"`
	DockerdPID    int    `json:"dockerdPID"`
	ContainerdPID int    `json:"containerdPID"`
	StorageDriver string `json:"storageDriver"`
	// ShimSocketDirMade says Start created /run/containerd/s, where
	// containerd 1.6's shims put their sockets whatever containerd's own
	// paths (containerd v1.6.20 runtime/v2/shim/util_unix.go:74): Stop
	// removes it when it is empty.
	ShimSocketDirMade bool `json:"shimSocketDirMade"`
}

// shimSocketDir is the fixed directory of containerd 1.6's shim sockets.
const shimSocketDir = "/run/containerd/s"

func (o Options) resolved() (Options, error) {
	if o.Dir == "" {
		d, err := DefaultDir()
		if err != nil {
			return o, err
		}
		o.Dir = d
	}
	abs, err := filepath.Abs(o.Dir)
	if err != nil {
		return o, fmt.Errorf("state directory %s: %w", o.Dir, err)
	}
	o.Dir = abs
	if o.Netns == "" {
		o.Netns = DefaultNetns
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o, nil
}

// Start creates the namespace and starts containerd and dockerd in it. On
// failure it removes what it made and returns an error that names the
// step, and the daemon's log when the daemon failed.
func Start(ctx context.Context, o Options) (Layout, error) {
	o, err := o.resolved()
	if err != nil {
		return Layout{}, err
	}
	l := Layout{Dir: o.Dir}
	if err := checkPrerequisites(); err != nil {
		return l, err
	}
	if st, err := readState(l); err == nil && isOurs(st.DockerdPID, l.DaemonJSON()) {
		return l, fmt.Errorf("a rehearsal daemon of %s runs already (dockerd pid %d); stop it first (`labctl rehearse daemon down --dir %s`)", l.Dir, st.DockerdPID, l.Dir)
	}
	for _, d := range []string{l.Dir, l.LogDir(), filepath.Dir(l.WrapperPath()), l.ContainerdDir(), l.DataRoot()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return l, fmt.Errorf("create the daemon's state directory: %w", err)
		}
	}
	driver, err := StorageDriverFor(l.DataRoot())
	if err != nil {
		return l, err
	}
	wrapper := l.WrapperPath()
	if o.Wrapper != "" {
		if err := copyFile(o.Wrapper, wrapper); err != nil {
			return l, fmt.Errorf("install the runtime wrapper %s: %w", o.Wrapper, err)
		}
	} else if err := BuildWrapper(ctx, wrapper); err != nil {
		return l, err
	}
	dj, err := DaemonJSON(l, driver, wrapper, o.Netns)
	if err != nil {
		return l, err
	}
	if err := os.WriteFile(l.DaemonJSON(), dj, 0o644); err != nil {
		return l, fmt.Errorf("write dockerd's configuration: %w", err)
	}
	if err := os.WriteFile(l.ContainerdTOML(), ContainerdTOML(l), 0o644); err != nil {
		return l, fmt.Errorf("write containerd's configuration: %w", err)
	}

	st := State{Netns: o.Netns, StorageDriver: driver}
	if _, err := os.Stat(shimSocketDir); os.IsNotExist(err) {
		st.ShimSocketDirMade = true
	}
	o.Log.Info("creating the daemon's network namespace", "netns", o.Netns)
	if err := createNetns(ctx, o.Netns); err != nil {
		return l, err
	}
	// From here on a failure must undo what was made: the state file tells
	// Stop what that is.
	fail := func(err error) (Layout, error) {
		_ = writeState(l, st)
		if serr := Stop(context.WithoutCancel(ctx), StopOptions{Dir: l.Dir, Log: o.Log}); serr != nil {
			err = errors.Join(err, fmt.Errorf("and removing what was started failed: %w", serr))
		}
		return l, err
	}
	if err := writeState(l, st); err != nil {
		return fail(err)
	}
	o.Log.Info("starting containerd", "log", l.ContainerdLog())
	st.ContainerdPID, err = startInNetns(ctx, "containerd", o.Netns, l.ContainerdLog(), filepath.Join(l.Dir, "containerd.notify"),
		"containerd", "--config", l.ContainerdTOML())
	if err != nil {
		return fail(err)
	}
	if err := writeState(l, st); err != nil {
		return fail(err)
	}
	o.Log.Info("starting dockerd", "log", l.DockerdLog(), "storage-driver", driver)
	st.DockerdPID, err = startInNetns(ctx, "dockerd", o.Netns, l.DockerdLog(), filepath.Join(l.Dir, "dockerd.notify"),
		"dockerd", "--config-file", l.DaemonJSON())
	if err != nil {
		return fail(err)
	}
	if err := writeState(l, st); err != nil {
		return fail(err)
	}
	if err := checkNoDefaultRoute(ctx, o.Netns); err != nil {
		return fail(err)
	}
	o.Log.Info("rehearsal daemon ready", "DOCKER_HOST", l.DockerHost(), "netns", o.Netns)
	return l, nil
}

func checkPrerequisites() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("the rehearsal daemon needs root (it creates a network namespace and runs dockerd)")
	}
	for _, p := range []string{"ip", "nsenter", "dockerd", "containerd", "containerd-shim-runc-v2", "runc"} {
		if _, err := exec.LookPath(p); err != nil {
			return fmt.Errorf("the rehearsal daemon needs %s on PATH (Debian: iproute2, util-linux, docker.io, containerd, runc): %w", p, err)
		}
	}
	return nil
}

func readState(l Layout) (State, error) {
	var st State
	b, err := os.ReadFile(l.StateFile())
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("%s: %w", l.StateFile(), err)
	}
	return st, nil
}

func writeState(l Layout, st State) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(l.StateFile(), b, 0o644); err != nil {
		return fmt.Errorf("record the daemon's state: %w", err)
	}
	return nil
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o755)
}

// stopGrace is how long dockerd gets to stop its containers: its own
// default shutdown timeout is 15 s per container (moby v20.10.24
// cmd/dockerd/config.go:16), plus its own teardown.
const stopGrace = 60 * time.Second
