package hostdaemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Record is what a rehearsal has changed on this host, kept in the daemon's
// directory (Layout.RecordFile) and rewritten before each change is made:
// after a SIGKILL the next `rehearse daemon down` or `rehearse run`
// reads it and undoes exactly that (Stop). One record serves both
// commands: `rehearse run` adds the kernel limits and /lib/modules to the
// daemon's own changes.
type Record struct {
	// Owner is the labctl making these changes: while it lives, no other
	// labctl undoes them.
	Owner Proc `json:"owner"`
	// Command is the owner's command, for messages.
	Command string `json:"command"`
	// Left says the changes were left in place on purpose (`daemon up`
	// finished, `run --keep`): only `daemon down` undoes them then.
	Left bool `json:"left,omitempty"`
	// Netns is the network namespace, recorded before `ip netns add`.
	Netns string `json:"netns,omitempty"`
	// CgroupParent is the containers' cgroup parent (daemon.json
	// cgroup-parent), recorded after checking it did not exist, before
	// dockerd makes it.
	CgroupParent string `json:"cgroupParent,omitempty"`
	// Processes are the daemons started, in start order.
	Processes []Proc `json:"processes,omitempty"`
	// ShimSocketDirMade says /run/containerd/s did not exist before the
	// daemon started: containerd 1.6's shims put their sockets there
	// whatever containerd's own paths (containerd v1.6.20
	// runtime/v2/shim/util_unix.go:74); it is removed when empty.
	ShimSocketDirMade bool `json:"shimSocketDirMade,omitempty"`
	// Sysctls are the kernel limits raised, with their old values.
	Sysctls []Raised `json:"sysctls,omitempty"`
	// Dirs are host directories made empty (/lib/modules): removed if still
	// empty.
	Dirs []string `json:"dirs,omitempty"`
	// LabStates are labctl state directories of labs built on this daemon,
	// recorded before labctl makes them. A lab's containers live in the
	// daemon, so once it is undone such a directory describes nothing:
	// undo removes it, if labctl's marker says labctl made it.
	LabStates []string `json:"labStates,omitempty"`
}

// Raised is a kernel limit raised from Old to New: restored to Old unless
// someone changed it meanwhile.
type Raised struct {
	Path string `json:"path"`
	Old  int64  `json:"old"`
	New  int64  `json:"new"`
}

// empty says nothing is recorded that would need undoing.
func (r Record) empty() bool {
	return r.Netns == "" && r.CgroupParent == "" && len(r.Processes) == 0 && !r.ShimSocketDirMade && len(r.Sysctls) == 0 && len(r.Dirs) == 0 &&
		len(r.LabStates) == 0
}

// Process returns the recorded process of that name.
func (r Record) Process(name string) (Proc, bool) {
	for _, p := range r.Processes {
		if p.Name == name {
			return p, true
		}
	}
	return Proc{}, false
}

// ReadRecord reads the record of a daemon directory; a missing one is an
// empty record.
func ReadRecord(l Layout) (Record, error) {
	var r Record
	b, err := os.ReadFile(l.RecordFile())
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, fmt.Errorf("read the rehearsal's record of host changes: %w", err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("the rehearsal's record of host changes %s: %w (remove what it lists by hand, then the file)", l.RecordFile(), err)
	}
	return r, nil
}

// Changes is this process's claim on a daemon directory and its record.
// Each method that adds to the record writes it (atomically) before the
// caller changes the host.
type Changes struct {
	mu  sync.Mutex
	l   Layout
	rec Record
}

// claims are the directories this process claimed: `rehearse run` claims
// its daemon directory first and Start, in the same process, continues the
// same record.
var (
	claimsMu sync.Mutex
	claims   = map[string]*Changes{}
)

func claimed(dir string) *Changes {
	claimsMu.Lock()
	defer claimsMu.Unlock()
	return claims[dir]
}

func release(dir string) {
	claimsMu.Lock()
	defer claimsMu.Unlock()
	delete(claims, dir)
}

// layout is the claimed directory's layout.
func (c *Changes) layout() Layout { return c.l }

// record is a copy of the record as it stands.
func (c *Changes) record() Record {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.rec
	r.Processes = slices.Clone(r.Processes)
	r.Sysctls = slices.Clone(r.Sysctls)
	r.Dirs = slices.Clone(r.Dirs)
	r.LabStates = slices.Clone(r.LabStates)
	return r
}

// update changes the record and writes it.
func (c *Changes) update(f func(*Record)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(&c.rec)
	return c.saveLocked()
}

func (c *Changes) saveLocked() error {
	b, err := json.MarshalIndent(c.rec, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(c.l.Dir, filepath.Base(c.l.RecordFile()), b, 0o600); err != nil {
		return fmt.Errorf("record the rehearsal's host changes: %w", err)
	}
	return nil
}

// AddSysctl records a kernel limit about to be raised.
func (c *Changes) AddSysctl(r Raised) error {
	return c.update(func(rec *Record) { rec.Sysctls = append(rec.Sysctls, r) })
}

// AddDir records a host directory about to be made.
func (c *Changes) AddDir(dir string) error {
	return c.update(func(rec *Record) { rec.Dirs = append(rec.Dirs, dir) })
}

// AddLabState records labctl's state directory of a lab about to be built
// on this daemon.
func (c *Changes) AddLabState(dir string) error {
	return c.update(func(rec *Record) { rec.LabStates = append(rec.LabStates, dir) })
}

// Forget drops a limit or directory that turned out not to be changed, or
// a lab state directory removed with its lab.
func (c *Changes) Forget(path string) error {
	return c.update(func(rec *Record) {
		rec.Sysctls = slices.DeleteFunc(rec.Sysctls, func(r Raised) bool { return r.Path == path })
		rec.Dirs = slices.DeleteFunc(rec.Dirs, func(d string) bool { return d == path })
		rec.LabStates = slices.DeleteFunc(rec.LabStates, func(d string) bool { return d == path })
	})
}

// Leave marks the changes as left in place on purpose — the daemon stays up
// after this labctl exits, until `rehearse daemon down` — and ends
// this process's claim.
func (c *Changes) Leave() error {
	release(c.l.Dir)
	return c.update(func(rec *Record) { rec.Left = true })
}

// Close ends this process's claim. If nothing is left to undo and nothing
// was left up on purpose, the record goes, and the marker and directory too
// when they hold nothing else (a kept data root keeps them).
func (c *Changes) Close() error {
	release(c.l.Dir)
	if rec := c.record(); !rec.empty() || rec.Left {
		return nil
	}
	if err := os.Remove(c.l.RecordFile()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	entries, err := os.ReadDir(c.l.Dir)
	if err != nil || len(entries) != 1 || entries[0].Name() != filepath.Base(c.l.marker()) {
		return nil
	}
	if err := os.Remove(c.l.marker()); err != nil {
		return err
	}
	return os.Remove(c.l.Dir)
}
