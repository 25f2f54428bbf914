//go:build unix

package dockertest

import (
	"os"
	"syscall"
)

// lockFile waits for an exclusive flock on f; the kernel releases it when
// f is closed or the process ends, so a killed run leaves no stale lock.
func lockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }
