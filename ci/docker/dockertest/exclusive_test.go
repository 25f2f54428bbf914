package dockertest

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// A second taker of the lock waits until the holder lets go: the holder is
// this test, the taker a goroutine with its own open file (as another
// process would have).
func TestExclusiveWaitsForTheHolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock on Windows; the lock does nothing there")
	}
	key := UniqueName("test")
	holder, err := lock(key)
	if err != nil {
		t.Fatal(err)
	}
	taken := make(chan error, 1)
	go func() {
		f, err := lock(key)
		if err == nil {
			f.Close()
		}
		taken <- err
	}()
	// A broken lock is taken at once; a working one never while held, so
	// this wait can only fail a broken lock.
	select {
	case err := <-taken:
		t.Fatalf("the lock was taken while held (err %v)", err)
	case <-time.After(200 * time.Millisecond):
	}
	holder.Close()
	if err := <-taken; err != nil {
		t.Fatalf("the lock was not taken after the holder let go: %v", err)
	}
}

func TestUniqueNameDiffers(t *testing.T) {
	a, b := UniqueName("gpu-lab-test"), UniqueName("gpu-lab-test")
	if a == b || !strings.HasPrefix(a, "gpu-lab-test-") {
		t.Errorf("UniqueName gave %q and %q, want two different names starting gpu-lab-test-", a, b)
	}
}
