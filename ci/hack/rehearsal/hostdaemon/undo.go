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
	"sort"
	"strconv"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/state"
)

// undo reverses what the record lists and logs each thing it undid; the
// record is rewritten as pieces go, so that what an error leaves is still
// listed. The daemons stop first (dockerd before containerd: dockerd stops
// its containers while containerd runs), then whatever else lives in the
// namespace or the containers' cgroup parent; only then are the mounts,
// the cgroup parent and the namespace removed, and the kernel limits and
// host directories last, when no node runs any more.
func (c *Changes) undo(ctx context.Context, log *slog.Logger) error {
	rec := c.record()
	if err := c.stopProcesses(ctx, rec, log); err != nil {
		// The namespace and mounts stay: they still hold a process.
		return err
	}
	var errs []error
	if err := unmountLayout(c.l, log); err != nil {
		errs = append(errs, err)
	}
	if rec.CgroupParent != "" {
		if existed, err := removeCgroupParent(rec.CgroupParent); err != nil {
			errs = append(errs, err)
		} else {
			if existed {
				log.Info("removed the containers' cgroup parent", "cgroup", rec.CgroupParent)
			}
			errs = append(errs, c.update(func(r *Record) { r.CgroupParent = "" }))
		}
	}
	if rec.Netns != "" && errors.Join(errs...) == nil {
		if err := deleteNetns(ctx, rec.Netns); err != nil {
			errs = append(errs, err)
		} else {
			log.Info("removed the network namespace", "netns", rec.Netns)
			errs = append(errs, c.update(func(r *Record) { r.Netns = "" }))
		}
	}
	if rec.ShimSocketDirMade {
		// Only if empty: other containerds' shims may use it meanwhile.
		if os.Remove(shimSocketDir) == nil {
			_ = os.Remove(filepath.Dir(shimSocketDir))
			log.Info("removed the shims' socket directory", "dir", shimSocketDir)
		}
		errs = append(errs, c.update(func(r *Record) { r.ShimSocketDirMade = false }))
	}
	errs = append(errs, c.undoLabStates(log), c.UndoSysctls(log), c.UndoDirs(log))
	return errors.Join(errs...)
}

// undoLabStates removes the lab state directories recorded, once the
// daemon that held their labs is gone: labctl would otherwise resume a lab
// that no longer exists. A directory without labctl's marker is not
// labctl's to remove: it stays, and the error names it.
func (c *Changes) undoLabStates(log *slog.Logger) error {
	var errs []error
	for _, d := range c.record().LabStates {
		if _, err := os.Lstat(d); errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, c.Forget(d))
			continue
		}
		if _, err := state.Dir(d).Marker(); err != nil {
			errs = append(errs, fmt.Errorf("the lab state directory an earlier rehearsal recorded: %w", err))
			continue
		}
		if err := os.RemoveAll(d); err != nil {
			errs = append(errs, fmt.Errorf("remove the lab state directory %s an earlier rehearsal left: %w", d, err))
			continue
		}
		log.Info("removed the lab state directory (its lab went with its daemon)", "dir", d)
		errs = append(errs, c.Forget(d))
	}
	return errors.Join(errs...)
}

// stopProcesses stops the recorded daemons, then every process left in the
// namespace or the cgroup parent.
func (c *Changes) stopProcesses(ctx context.Context, rec Record, log *slog.Logger) error {
	var errs []error
	procs := slices.Clone(rec.Processes)
	slices.Reverse(procs)
	if rec.Netns != "" {
		in, err := netnsProcesses(NetnsPath(rec.Netns))
		if err != nil {
			errs = append(errs, err)
		}
		procs = append(procs, in...)
	}
	if rec.CgroupParent != "" {
		procs = append(procs, cgroupProcesses(rec.CgroupParent)...)
	}
	// What the record does not list (a daemon started just before a
	// SIGKILL, shims): newest first, as the recorded ones.
	found := procs[len(rec.Processes):]
	sort.SliceStable(found, func(i, j int) bool { return found[i].StartTime > found[j].StartTime })
	seen := map[Proc]bool{}
	for i, p := range procs {
		if i == len(rec.Processes) && rec.CgroupParent != "" {
			// The daemons are stopped: nothing freezes a container's
			// cgroup any more, and a frozen one would keep its tasks.
			for _, cg := range thawCgroups(cgroupParentDirs(rec.CgroupParent)) {
				log.Info("thawed a frozen cgroup so that its processes can be stopped", "cgroup", cg)
			}
		}
		if seen[p] || !p.Alive() {
			continue
		}
		seen[p] = true
		log.Info("stopping "+p.Name, "pid", p.PID, "cmdline", cmdline(p.PID))
		if err := stopProcess(ctx, p, stopGrace); err != nil {
			errs = append(errs, fmt.Errorf("stop %s: %w", p, err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return c.update(func(r *Record) { r.Processes = nil })
}

// UndoSysctls restores each raised kernel limit to its old value, unless
// someone changed it meanwhile (then it is theirs and stays).
func (c *Changes) UndoSysctls(log *slog.Logger) error {
	var errs []error
	for _, r := range c.record().Sysctls {
		if cur, err := readInt(r.Path); err == nil && cur == r.New {
			if err := os.WriteFile(r.Path, []byte(strconv.FormatInt(r.Old, 10)), 0o644); err != nil {
				errs = append(errs, fmt.Errorf("restore %s to %d: %w", r.Path, r.Old, err))
				continue
			}
			log.Info("restored a kernel limit", "limit", r.Path, "to", r.Old)
		}
		errs = append(errs, c.Forget(r.Path))
	}
	return errors.Join(errs...)
}

// UndoDirs removes each host directory made, if it is still empty
// (something may have put files into it meanwhile: then it stays and the
// error says so).
func (c *Changes) UndoDirs(log *slog.Logger) error {
	var errs []error
	for _, d := range c.record().Dirs {
		if err := os.Remove(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove %s, which the rehearsal created empty: %w", d, err))
			continue
		}
		log.Info("removed the empty directory the rehearsal made", "dir", d)
		errs = append(errs, c.Forget(d))
	}
	return errors.Join(errs...)
}

// readInt reads a file holding one integer, as /proc/sys files do.
func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}
