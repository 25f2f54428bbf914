// Package owndir removes a directory a rehearsal tool made, once the files
// it made there are gone, and keeps it — naming what is left — when it holds
// anything else: a root tool removes only what it made.
package owndir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// RemoveIfEmpty removes dir when it is empty or missing. Otherwise it keeps
// it and returns an error naming owner and the entries left in it.
func RemoveIfEmpty(dir, owner string) error {
	err := os.Remove(dir)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	entries, rerr := os.ReadDir(dir)
	if rerr != nil {
		return fmt.Errorf("kept %s: %w", dir, err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return fmt.Errorf("kept %s: it holds files %s did not make (%s)", dir, owner, strings.Join(names, ", "))
}
