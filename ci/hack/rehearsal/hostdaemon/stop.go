package hostdaemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/owndir"
	"golang.org/x/sys/unix"
)

// StopOptions says which daemon to stop and what to keep.
type StopOptions struct {
	Dir string
	// Netns, when given, must be the namespace the record names: only a
	// recorded namespace is ever removed.
	Netns string
	// KeepDataRoot keeps the data root (images, so a next Start needs no
	// new `docker load`); everything else is removed.
	KeepDataRoot bool
	Log          *slog.Logger
}

// Stop undoes what the record of the daemon directory lists — dockerd,
// containerd and every process left in the namespace or the containers'
// cgroup parent (found by recorded pid and start time, or by namespace and
// cgroup: never by name), the mounts below the layout's own directories,
// the cgroup parent, the namespace, and what `rehearse run` added (kernel
// limits, /lib/modules) — then removes the layout's own files (the data
// root only unless kept) and checks that none of it is left. A directory
// Start did not make (no marker) is refused untouched; one that holds
// other files too is kept with them.
func Stop(ctx context.Context, so StopOptions) error {
	o, err := Options{Dir: so.Dir, Netns: so.Netns, Log: so.Log}.resolved()
	if err != nil {
		return err
	}
	l := Layout{Dir: o.Dir}
	c, err := open(l)
	if err != nil {
		return err
	}
	if c == nil {
		o.Log.Info("no rehearsal daemon directory: nothing to stop", "dir", l.Dir)
		return nil
	}
	rec := c.record()
	if rec.ownerRunning() {
		return rec.inUse(l.Dir)
	}
	if so.Netns != "" && rec.Netns != "" && so.Netns != rec.Netns {
		return fmt.Errorf("the daemon of %s runs in network namespace %s, not %s: pass --netns %s or leave it out",
			l.Dir, rec.Netns, so.Netns, rec.Netns)
	}
	if err := c.undo(ctx, o.Log); err != nil {
		return fmt.Errorf("stop the rehearsal daemon of %s (what is left is still listed in %s; run this again): %w", l.Dir, l.RecordFile(), err)
	}
	// The record goes only once nothing it listed is left.
	if err := Leftovers(l, rec.Netns); err != nil {
		return err
	}
	if err := removeLayout(l, so.KeepDataRoot, o.Log); err != nil {
		return err
	}
	release(l.Dir)
	return nil
}

// Leftovers returns an error naming every mount, namespace and cgroup of
// this daemon that still exists; nil when none does.
func Leftovers(l Layout, netns string) error {
	var left []string
	if m, err := os.ReadFile("/proc/mounts"); err == nil {
		for _, root := range l.mountRoots() {
			for _, mp := range mountsUnder(m, root) {
				left = append(left, "mount "+mp)
			}
		}
	}
	if netns != "" {
		if _, err := os.Stat(NetnsPath(netns)); err == nil {
			left = append(left, "network namespace "+netns)
		}
		for _, p := range cgroupProcesses(netns) {
			left = append(left, fmt.Sprintf("process %d (%s)", p.PID, cmdline(p.PID)))
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

// unmountLayout unmounts what the daemons left mounted below the layout's
// own directories, deepest first; nothing else below the directory.
func unmountLayout(l Layout, log *slog.Logger) error {
	m, err := os.ReadFile("/proc/mounts")
	if err != nil {
		return fmt.Errorf("read /proc/mounts: %w", err)
	}
	var errs []error
	for _, root := range l.mountRoots() {
		for _, mp := range mountsUnder(m, root) {
			log.Info("unmounting what the daemon left mounted", "mountpoint", mp)
			if err := unix.Unmount(mp, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT) {
				errs = append(errs, fmt.Errorf("unmount %s: %w", mp, err))
			}
		}
	}
	return errors.Join(errs...)
}

// removeLayout removes the layout's own paths (the data root and the
// marker too unless the data root is kept), then the directory if nothing
// else is in it; other files stay, and are named.
func removeLayout(l Layout, keepDataRoot bool, log *slog.Logger) error {
	paths := l.ownPaths()
	if !keepDataRoot {
		paths = append(paths, l.dataRoot(), l.marker())
	}
	if err := removeUnmounted(paths...); err != nil {
		return err
	}
	if keepDataRoot {
		return nil
	}
	if err := owndir.RemoveIfEmpty(l.Dir, "the daemon"); err != nil {
		log.Warn("kept the daemon's directory", "err", err)
	}
	return nil
}

// removeUnmounted removes each path, refusing (and naming) one that
// still has something mounted under it.
func removeUnmounted(paths ...string) error {
	m, err := os.ReadFile("/proc/mounts")
	if err != nil {
		return fmt.Errorf("read /proc/mounts: %w", err)
	}
	for _, p := range paths {
		if left := mountsUnder(m, p); len(left) > 0 {
			return fmt.Errorf("%s still has mounts (%s): not removed", p, strings.Join(left, ", "))
		}
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("remove the daemon's %s: %w", p, err)
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

// removeCgroupParent removes the cgroup parent directories, each
// container's cgroup below them first (dockerd removes those as its
// containers stop; a dockerd that was killed leaves them). A cgroup that
// still holds a process cannot be removed: the error names it. It says
// whether any existed.
func removeCgroupParent(parent string) (bool, error) {
	var errs []error
	existed := false
	for _, d := range cgroupParentDirs(parent) {
		var dirs []string
		_ = filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
		existed = existed || len(dirs) > 0
		for i := len(dirs) - 1; i >= 0; i-- { // deepest first
			if err := os.Remove(dirs[i]); err != nil && !os.IsNotExist(err) {
				errs = append(errs, fmt.Errorf("remove cgroup %s (a container's process is left in it?): %w", dirs[i], err))
				break
			}
		}
	}
	return existed, errors.Join(errs...)
}

// thawCgroups thaws every frozen cgroup below dirs (the containers' cgroup
// parent in each hierarchy, cgroupParentDirs) and returns the ones it
// thawed. A frozen task takes a SIGKILL only
// once thawed, and a pid namespace's init (a kind node's systemd) exits only
// after every task of its namespace has: runc's systemd cgroup driver on
// cgroup v1 freezes a container's cgroup while it sets the unit's
// properties (opencontainers/cgroups v0.0.6 systemd/v1.go:374-396), so a
// node's containerd killed at that moment leaves it frozen, and stopping
// the node's processes then hangs (the 2026-12-07 finding). On cgroup v2
// the file is cgroup.freeze ("1" frozen), on v1 the freezer hierarchy's
// freezer.state (FROZEN, FREEZING, THAWED).
func thawCgroups(dirs []string) []string {
	var files []string
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && (e.Name() == "freezer.state" || e.Name() == "cgroup.freeze") {
				files = append(files, path)
			}
			return nil
		})
	}
	// Parents first: on cgroup v1 a child of a frozen cgroup stays frozen
	// whatever it is told.
	slices.SortStableFunc(files, func(a, b string) int {
		return strings.Count(a, string(filepath.Separator)) - strings.Count(b, string(filepath.Separator))
	})
	var thawed []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		state, thaw := strings.TrimSpace(string(b)), "THAWED"
		frozen := state != "THAWED"
		if filepath.Base(f) == "cgroup.freeze" {
			frozen, thaw = state == "1", "0"
		}
		if frozen && os.WriteFile(f, []byte(thaw), 0o644) == nil {
			thawed = append(thawed, filepath.Dir(f))
		}
	}
	return thawed
}

// removeDataRoot removes the data root a killed rehearsal left. Stop
// removes it at the end of every run; a killed run leaves it with its
// lab's containers and networks in it, which the next daemon would start
// again (on the real lab the next labctl up then met "kind cluster gpu-lab
// exists but not created by labctl from this state dir").
func removeDataRoot(l Layout, log *slog.Logger) error {
	root := l.dataRoot()
	if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := removeUnmounted(root); err != nil {
		return err
	}
	log.Info("removed the data root an earlier rehearsal left (its lab's containers were in it)", "dir", root)
	return nil
}
