package dockertest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// UniqueName is prefix plus a random suffix: a name (image, network,
// container) no other test run on the same daemon uses, so runs at the
// same time do not remove each other's objects.
func UniqueName(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}

// Exclusive holds, until the test ends, a lock named key that every test
// process on this machine shares (a file lock in the temporary directory):
// for a test that must use fixed names on the daemon — the lab's real
// image references — and would otherwise replace and remove the objects
// of the same test in another run at the same time (a soak beside a
// developer's go test). Runs on other machines sharing one remote daemon
// are not covered.
func Exclusive(t testing.TB, key string) {
	t.Helper()
	f, err := lock(key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() }) // closing the file releases the lock
}

// lock waits for the machine-wide lock key and returns the file holding it.
func lock(key string) (*os.File, error) {
	path := filepath.Join(os.TempDir(), "gpu-lab-dockertest-"+key+".lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}
