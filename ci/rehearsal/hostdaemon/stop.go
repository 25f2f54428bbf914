package hostdaemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// StopOptions says which daemon to stop and what to keep.
type StopOptions struct {
	Dir string
	// Netns is the namespace to remove when the state file is missing (a
	// Start that failed before writing it); when empty, a missing state
	// file means no namespace is removed: the default name may belong to
	// another state directory's daemon.
	Netns string
	// KeepDataRoot keeps the data root (images, so a next Start needs no
	// new `docker load`); everything else is removed.
	KeepDataRoot bool
	Log          *slog.Logger
}

// Stop stops dockerd, containerd and every process that mentions the state
// directory (shims, containers' leftovers), unmounts whatever is mounted
// below it, removes the namespace and the state directory (the data root
// only unless kept), then checks that none of it is left.
func Stop(ctx context.Context, so StopOptions) error {
	o, err := Options{Dir: so.Dir, Netns: so.Netns, Log: so.Log}.resolved()
	if err != nil {
		return err
	}
	l := Layout{Dir: o.Dir}
	st, err := readState(l)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if st.Netns == "" {
		st.Netns = so.Netns
	}
	var errs []error
	if st.DockerdPID > 0 && isOurs(st.DockerdPID, l.DaemonJSON()) {
		o.Log.Info("stopping dockerd", "pid", st.DockerdPID)
		if err := stopProcess(ctx, st.DockerdPID, stopGrace); err != nil {
			errs = append(errs, fmt.Errorf("stop dockerd (log %s): %w", l.DockerdLog(), err))
		}
	}
	if st.ContainerdPID > 0 && isOurs(st.ContainerdPID, l.ContainerdTOML()) {
		o.Log.Info("stopping containerd", "pid", st.ContainerdPID)
		if err := stopProcess(ctx, st.ContainerdPID, stopGrace); err != nil {
			errs = append(errs, fmt.Errorf("stop containerd (log %s): %w", l.ContainerdLog(), err))
		}
	}
	for _, pid := range daemonProcesses(l) {
		o.Log.Info("stopping a process the daemon left", "pid", pid, "cmdline", cmdline(pid))
		if err := stopProcess(ctx, pid, stopGrace); err != nil {
			errs = append(errs, fmt.Errorf("stop leftover process %d (%s): %w", pid, cmdline(pid), err))
		}
	}
	if err := unmountUnder(l.Dir, o.Log); err != nil {
		errs = append(errs, err)
	}
	if st.Netns != "" {
		if err := removeCgroupParent(st.Netns); err != nil {
			errs = append(errs, err)
		}
	}
	if st.Netns != "" {
		if err := deleteNetns(ctx, st.Netns); err != nil {
			errs = append(errs, err)
		}
	}
	if st.ShimSocketDirMade {
		// Only if empty: other containerds' shims may use it meanwhile.
		if os.Remove(shimSocketDir) == nil {
			_ = os.Remove(filepath.Dir(shimSocketDir))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("stop the rehearsal daemon of %s: %w", l.Dir, errors.Join(errs...))
	}
	if err := removeState(l, so.KeepDataRoot); err != nil {
		return err
	}
	return Leftovers(l, st.Netns)
}

// Leftovers returns an error naming every process, mount and namespace of
// this daemon that still exists; nil when none does.
func Leftovers(l Layout, netns string) error {
	var left []string
	for _, pid := range daemonProcesses(l) {
		left = append(left, fmt.Sprintf("process %d (%s)", pid, cmdline(pid)))
	}
	if m, err := os.ReadFile("/proc/mounts"); err == nil {
		for _, mp := range MountsUnder(m, l.Dir) {
			left = append(left, "mount "+mp)
		}
	}
	if netns != "" {
		if _, err := os.Stat(NetnsPath(netns)); err == nil {
			left = append(left, "network namespace "+netns)
		}
		for _, d := range cgroupParentDirs(netns) {
			if _, err := os.Stat(d); err == nil {
				left = append(left, "cgroup "+d)
			}
		}
	}
	if len(left) > 0 {
		return fmt.Errorf("the rehearsal daemon of %s left: %s", l.Dir, strings.Join(left, "; "))
	}
	return nil
}

func unmountUnder(dir string, log *slog.Logger) error {
	m, err := os.ReadFile("/proc/mounts")
	if err != nil {
		return fmt.Errorf("read /proc/mounts: %w", err)
	}
	var errs []error
	for _, mp := range MountsUnder(m, dir) {
		log.Info("unmounting what the daemon left mounted", "mountpoint", mp)
		if err := unix.Unmount(mp, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT) {
			errs = append(errs, fmt.Errorf("unmount %s: %w", mp, err))
		}
	}
	return errors.Join(errs...)
}

// removeState removes the state directory, or all of it but the data root.
func removeState(l Layout, keepDataRoot bool) error {
	if !keepDataRoot {
		if err := os.RemoveAll(l.Dir); err != nil {
			return fmt.Errorf("remove the daemon's state directory: %w", err)
		}
		return nil
	}
	entries, err := os.ReadDir(l.Dir)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(l.Dir, e.Name())
		if p == l.DataRoot() {
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("remove the daemon's state: %w", err)
		}
	}
	return nil
}

// cgroupParentDirs are the directories of the containers' cgroup parent in
// every hierarchy mounted under /sys/fs/cgroup (one per controller on this
// cgroup v1 host; the single one on cgroup v2).
func cgroupParentDirs(parent string) []string {
	var out []string
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		return []string{filepath.Join("/sys/fs/cgroup", parent)}
	}
	entries, _ := os.ReadDir("/sys/fs/cgroup")
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join("/sys/fs/cgroup", e.Name(), parent))
		}
	}
	return out
}

// removeCgroupParent removes the cgroup parent directories (dockerd leaves
// them; they are empty once its containers are gone). A directory that
// still holds a process cannot be removed: the error names it.
func removeCgroupParent(parent string) error {
	var errs []error
	for _, d := range cgroupParentDirs(parent) {
		if err := os.Remove(d); err != nil && !os.IsNotExist(err) {
			errs = append(errs, fmt.Errorf("remove cgroup %s (a container's process is left in it?): %w", d, err))
		}
	}
	return errors.Join(errs...)
}

func cmdline(pid int) string {
	b, _ := os.ReadFile(filepath.Join("/proc", fmt.Sprint(pid), "cmdline"))
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}
