package owner

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/gpu-lab/gpu-lab/ci/state"
)

// Record is what a state dir created: its owner ID and the kind cluster's
// node containers.
type Record struct {
	// ID is random (128 bits, hex); it labels every container labctl starts.
	ID string `json:"id"`
	// KindCluster is the name of the kind cluster this state dir created.
	KindCluster string `json:"kindCluster,omitempty"`
	// KindNodes maps each of its node containers' names to the ID Docker gave
	// it.
	KindNodes map[string]string `json:"kindNodes,omitempty"`
	// KindPending: the create of KindCluster began and has not finished
	// (ci/stages/kindcreate.go); KindNodes holds the node containers seen so far.
	KindPending bool `json:"kindPending,omitempty"`
	// KindNetwork is the Docker network kind made for the cluster: it did
	// not exist when this state dir's create began (ci/stages/kindcreate.go).
	KindNetwork string `json:"kindNetwork,omitempty"`
}

// Read reads the state dir's record; ok is false when it has none.
func Read(d state.Dir) (rec Record, ok bool, err error) {
	b, ok, err := d.ReadOwnerRecord()
	if err != nil {
		return Record{}, false, fmt.Errorf("read owner record: %w", err)
	}
	if !ok {
		return Record{}, false, nil
	}
	if err := json.Unmarshal(b, &rec); err != nil || rec.ID == "" {
		if err == nil {
			err = errors.New("no id")
		}
		return Record{}, false, fmt.Errorf("owner record %s is damaged (%w): labctl cannot tell what this state dir created; remove "+
			"the lab's objects by hand", d.OwnerRecordPath(), err)
	}
	return rec, true, nil
}

// Write replaces the record through the state dir's own write (a fresh
// private temporary file, renamed over it).
func Write(d state.Dir, rec Record) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := d.WriteOwnerRecord(append(b, '\n')); err != nil {
		return fmt.Errorf("write owner record: %w", err)
	}
	return nil
}

// newID draws a fresh owner ID.
func newID(r io.Reader) (string, error) {
	b := make([]byte, 16)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("owner id: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Ensure returns the state dir's record, creating it (a new ID) when the
// state dir has none.
func Ensure(d state.Dir) (Record, error) {
	rec, ok, err := Read(d)
	if err != nil || ok {
		return rec, err
	}
	id, err := newID(rand.Reader)
	if err != nil {
		return Record{}, err
	}
	rec = Record{ID: id}
	return rec, Write(d, rec)
}
