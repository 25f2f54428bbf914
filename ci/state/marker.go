package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// Kind is the backend that made a state dir.
type Kind string

const (
	// RealLab is a state dir of `labctl up` (Docker, kind, Kamaji, HAMi).
	RealLab Kind = "lab"
	// Testenv is a state dir of `labctl testenv up` (local processes).
	Testenv Kind = "testenv"
)

// Command is the labctl command that makes a state dir of this kind.
func (k Kind) Command() string {
	if k == Testenv {
		return "labctl testenv up"
	}
	return "labctl up"
}

// ErrNotLabctl: the directory has no marker, so labctl did not make it.
var ErrNotLabctl = errors.New("not a labctl state dir")

// Marker is labctl's record in a state dir: which backend made it and every
// path labctl wrote there (slash-separated, relative; directories end in
// "/"). `down` removes only paths listed here.
type Marker struct {
	Tool    string    `json:"tool"`
	Kind    Kind      `json:"kind"`
	Created time.Time `json:"created"`
	Written []string  `json:"written"`
}

// Marker reads the marker; without one the error wraps ErrNotLabctl and
// says what to do.
func (d Dir) Marker() (Marker, error) {
	var m Marker
	b, err := os.ReadFile(d.path(markerFile))
	if errors.Is(err, os.ErrNotExist) {
		if _, serr := os.Stat(string(d)); errors.Is(serr, os.ErrNotExist) {
			return m, fmt.Errorf("state dir %s does not exist (%w): run `labctl up` or `labctl testenv up` with "+
				"--state-dir %s first, or pass the --state-dir they used", d, ErrNotLabctl, d)
		}
		return m, fmt.Errorf("directory %s is %w: it has no %s, so labctl did not make it "+
			"(a state dir of a labctl older than that file has none either): labctl acts only on state dirs it made; "+
			"pass the --state-dir `labctl up` or `labctl testenv up` used", d, ErrNotLabctl, markerFile)
	}
	if err != nil {
		return m, fmt.Errorf("state dir %s: %w", d, err)
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Tool != "labctl" || (m.Kind != RealLab && m.Kind != Testenv) {
		return m, fmt.Errorf("state dir %s: %s is damaged (%v): labctl cannot tell what it wrote there; "+
			"remove what you no longer need by hand", d, d.path(markerFile), err)
	}
	return m, nil
}

// Kind is the backend that made the state dir ("" when it has no marker).
func (d Dir) Kind() Kind {
	m, err := d.Marker()
	if err != nil {
		return ""
	}
	return m.Kind
}

// Claim makes d a state dir of kind k: a new directory (0700) or an empty
// one gets the marker; one that already has it must be of kind k. A
// directory that holds anything else is refused, as is one another user
// owns or group or others may write (see CheckSafe).
func (d Dir) Claim(k Kind) error {
	markerMu.Lock()
	defer markerMu.Unlock()
	if err := os.MkdirAll(string(d), 0o700); err != nil {
		return fmt.Errorf("state dir %s: %w", d, err)
	}
	if err := d.CheckSafe(); err != nil {
		return err
	}
	m, err := d.Marker()
	switch {
	case err == nil && m.Kind == k:
		return nil
	case err == nil:
		return fmt.Errorf("state dir %s was made by `%s`, not `%s`: use another --state-dir, "+
			"or `labctl down --state-dir %s` first", d, m.Kind.Command(), k.Command(), d)
	case !errors.Is(err, ErrNotLabctl):
		return err
	}
	entries, err := os.ReadDir(string(d))
	if err != nil {
		return fmt.Errorf("state dir %s: %w", d, err)
	}
	if len(entries) > 0 {
		var names []string
		for _, e := range entries[:min(len(entries), 5)] {
			names = append(names, e.Name())
		}
		if len(entries) > 5 {
			names = append(names, "…")
		}
		return fmt.Errorf("directory %s is not empty (%s) and has no %s: labctl makes its state only in a new "+
			"or empty directory, so it never mixes with (or later removes) your files; pass another --state-dir "+
			"(a state dir of a labctl older than that file is refused too: remove it by hand once its lab is gone)",
			d, strings.Join(names, ", "), markerFile)
	}
	// An empty directory the user made (0755, say) becomes private too.
	if err := os.Chmod(string(d), 0o700); err != nil {
		return fmt.Errorf("state dir %s: %w", d, err)
	}
	return d.saveMarker(Marker{Tool: "labctl", Kind: k, Created: time.Now().UTC()})
}

func (d Dir) saveMarker(m Marker) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(d.path(markerFile), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("state dir %s: record what labctl wrote: %w", d, err)
	}
	return nil
}

// markerMu makes each read-modify-write of a marker whole within this
// process: the stages write side by side (the hami stage each tenant's
// values file at once), and two records read before either was saved lost
// one — the rehearsal's gpus:INT+8s (2026-12-07) then left
// values/hami-tenant-a.yaml after the teardown, and the next up refused it
// as a file labctl did not write. Other processes are kept out by
// running.lock (Hold). Held by reserve, NewDiagnostics, Hold, remove and
// Claim; record and mkdirs expect it held.
var markerMu sync.Mutex

// record adds rel to the marker's list (before the path is written, so an
// interrupted write leaves a recorded path, never an unrecorded file).
// markerMu is held.
func (d Dir) record(rel string) error {
	m, err := d.Marker()
	if err != nil {
		return err
	}
	if slices.Contains(m.Written, rel) {
		return nil
	}
	m.Written = append(m.Written, rel)
	return d.saveMarker(m)
}
