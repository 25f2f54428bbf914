package images

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
)

// loadRecord is what LoadOnce remembers of a loaded bundle.
type loadRecord struct {
	Index  string `json:"index"` // sha256 of index.json
	Loaded Loaded `json:"loaded"`
	// Unverified are the digest-pinned references loaded unchecked: a
	// later run without opts.AllowUnverifiedPins loads (and refuses) again.
	Unverified []string `json:"unverified,omitempty"`
	// Pins is pinsChecked when the load checked pins as bundle_pin.go
	// says: a record of an earlier labctl, which loaded an unchecked pin
	// with a warning only, is not trusted.
	Pins string `json:"pins"`
}

const pinsChecked = "checked-or-listed-unverified"

// LoadOnce is Load, skipped when record says this very bundle (same
// index.json) was loaded and the daemon still has every image it named:
// `labctl up --only STAGE --images DIR` runs once per stage in the Dagger
// module, and loading gigabytes six times would cost minutes.
func LoadOnce(ctx context.Context, d Daemon, dir, record string, opts LoadOptions, log *slog.Logger) (Loaded, error) {
	raw, err := readIndexFile(dir)
	if err != nil {
		return nil, err
	}
	idx, err := parseIndex(dir, raw)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	want := hex.EncodeToString(sum[:])
	if b, err := readCapped(record, maxIndexFile); err == nil {
		var r loadRecord
		if json.Unmarshal(b, &r) == nil && r.Index == want && r.Pins == pinsChecked &&
			(len(r.Unverified) == 0 || opts.AllowUnverifiedPins) && stillThere(ctx, d, r.Loaded) {
			log.Info("image bundle already loaded", "dir", dir, "images", len(r.Loaded))
			return r.Loaded, nil
		}
	}
	// The index hashed is the index loaded: read once.
	loaded, unverified, err := loadIndex(ctx, d, dir, idx, opts, log)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(loadRecord{Index: want, Loaded: loaded, Unverified: unverified, Pins: pinsChecked})
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(record), 0o755); err != nil {
		return nil, fmt.Errorf("image bundle record: %w", err)
	}
	if err := os.WriteFile(record, b, 0o644); err != nil {
		return nil, fmt.Errorf("image bundle record: %w", err)
	}
	return loaded, nil
}

// stillThere reports whether the daemon has every image of l (one docker
// command).
func stillThere(ctx context.Context, d Daemon, l Loaded) bool {
	if len(l) == 0 {
		return false
	}
	var local []string
	for _, name := range l {
		local = append(local, name)
	}
	_, err := d.ImageIDs(ctx, local...)
	return err == nil
}
