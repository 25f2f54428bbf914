package state

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// errBusy: another labctl process holds the state dir.
var errBusy = errors.New("in use")

// Hold takes the state dir's lock (flock on running.lock) for a process
// that works on it: `labctl testenv up` for as long as its environment
// runs, `labctl up` and `down` while they change things. The kernel drops
// the lock when the process ends, however it ends, so a held lock means
// the holder is alive. A dir held by another process gives an error
// wrapping ErrBusy that names its pid and command.
func (d Dir) Hold(what string) (release func(), err error) {
	markerMu.Lock()
	err = d.record(lockFile)
	markerMu.Unlock()
	if err != nil {
		return nil, err
	}
	p := d.path(lockFile)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("state dir %s: lock: %w", d, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(p)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("state dir %s is %w by %s", d, errBusy, describeHolder(string(holder)))
		}
		return nil, fmt.Errorf("state dir %s: lock %s: %w", d, p, err)
	}
	// Who holds it, for the message another process prints.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+" "+what+"\n"), 0)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

func describeHolder(s string) string {
	pid, what, ok := strings.Cut(strings.TrimSpace(s), " ")
	if !ok {
		return "another labctl process"
	}
	return fmt.Sprintf("`%s` (pid %s)", what, pid)
}
