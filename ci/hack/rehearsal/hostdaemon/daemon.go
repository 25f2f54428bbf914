package hostdaemon

import (
	"context"
	"errors"
	"fmt"
	"io"
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

// Start creates the namespace and starts containerd and dockerd in it. The
// directory is claimed first (Claim: made by Start, or one an earlier
// Start made), and each change to the host is recorded in it before it is
// made. On failure it removes what it made and returns an error that names
// the step, and the daemon's log when the daemon failed.
func Start(ctx context.Context, o Options) (Layout, error) {
	o, err := o.resolved()
	if err != nil {
		return Layout{}, err
	}
	l := Layout{Dir: o.Dir}
	if err := checkPrerequisites(); err != nil {
		return l, err
	}
	own := claimed(l.Dir) == nil
	c, err := Claim(ctx, l.Dir, "rehearse daemon up", o.Log)
	if err != nil {
		return l, err
	}
	// From here on a failure must undo what was made: the record tells
	// Stop what that is.
	fail := func(err error) (Layout, error) {
		if serr := Stop(context.WithoutCancel(ctx), StopOptions{Dir: l.Dir, Log: o.Log}); serr != nil {
			err = errors.Join(err, fmt.Errorf("and removing what was started failed: %w", serr))
		}
		return l, err
	}
	for _, d := range []string{l.LogDir(), filepath.Dir(l.wrapperPath()), l.containerdDir(), l.dataRoot()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fail(fmt.Errorf("create the daemon's directory: %w", err))
		}
	}
	driver, err := storageDriverFor(l.dataRoot())
	if err != nil {
		return fail(err)
	}
	if err := installWrapper(ctx, o.Wrapper, l.wrapperPath()); err != nil {
		return fail(err)
	}
	dj, err := daemonJSON(l, driver, l.wrapperPath(), o.Netns)
	if err != nil {
		return fail(err)
	}
	if err := writeFileAtomic(l.Dir, filepath.Base(l.daemonJSON()), dj, 0o644); err != nil {
		return fail(fmt.Errorf("dockerd's configuration: %w", err))
	}
	if err := writeFileAtomic(l.Dir, filepath.Base(l.containerdTOML()), containerdTOML(l), 0o644); err != nil {
		return fail(fmt.Errorf("containerd's configuration: %w", err))
	}
	if err := c.startDaemons(ctx, o, driver); err != nil {
		return fail(err)
	}
	if own {
		// daemon up: the daemon stays after this labctl exits.
		if err := c.Leave(); err != nil {
			return fail(err)
		}
	}
	o.Log.Info("rehearsal daemon ready", "DOCKER_HOST", l.DockerHost(), "netns", o.Netns)
	return l, nil
}

// startDaemons makes the namespace and starts containerd and dockerd in
// it, recording each before it is made.
func (c *Changes) startDaemons(ctx context.Context, o Options, driver string) error {
	l := c.l
	if _, err := os.Stat(shimSocketDir); os.IsNotExist(err) {
		if err := c.update(func(r *Record) { r.ShimSocketDirMade = true }); err != nil {
			return err
		}
	}
	for _, d := range cgroupParentDirs(o.Netns) {
		if _, err := os.Lstat(d); err == nil {
			return fmt.Errorf("the cgroup %s exists already: the containers' cgroup parent is named after the namespace "+
				"(%s) and must be this daemon's own; choose another --netns, or remove it if it is an earlier rehearsal's",
				d, o.Netns)
		}
	}
	if err := checkNetnsFree(o.Netns); err != nil {
		return err
	}
	if err := c.update(func(r *Record) { r.Netns, r.CgroupParent = o.Netns, o.Netns }); err != nil {
		return err
	}
	o.Log.Info("creating the daemon's network namespace", "netns", o.Netns)
	if err := createNetns(ctx, o.Netns); err != nil {
		return err
	}
	record := func(p Proc) error {
		return c.update(func(r *Record) { r.Processes = append(r.Processes, p) })
	}
	o.Log.Info("starting containerd", "log", l.containerdLog())
	if _, err := startInNetns(ctx, "containerd", o.Netns, l.containerdLog(), l.notifySocket("containerd"), record,
		"containerd", "--config", l.containerdTOML()); err != nil {
		return err
	}
	o.Log.Info("starting dockerd", "log", l.DockerdLog(), "storage-driver", driver)
	if _, err := startInNetns(ctx, "dockerd", o.Netns, l.DockerdLog(), l.notifySocket("dockerd"), record,
		"dockerd", "--config-file", l.daemonJSON()); err != nil {
		return err
	}
	return checkNoDefaultRoute(ctx, o.Netns)
}

// installWrapper puts the runtime wrapper dockerd runs as root into the
// daemon's directory (made and checked by Claim): built, or copied from
// src, into an O_EXCL temporary file there, then renamed into place.
func installWrapper(ctx context.Context, src, dst string) error {
	f, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.tmp")
	if err != nil {
		return fmt.Errorf("install the runtime wrapper: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if src != "" {
		err = copyInto(f, src)
	} else {
		f.Close()
		err = BuildWrapper(ctx, tmp)
	}
	if err != nil {
		return fmt.Errorf("install the runtime wrapper %s: %w", src, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

func copyInto(f *os.File, src string) error {
	in, err := os.Open(src)
	if err != nil {
		f.Close()
		return err
	}
	defer in.Close()
	_, err = io.Copy(f, in)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
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

// stopGrace is how long dockerd gets to stop its containers: its own
// default shutdown timeout is 15 s per container (moby v20.10.24
// cmd/dockerd/config.go:16), plus its own teardown.
const stopGrace = 60 * time.Second
