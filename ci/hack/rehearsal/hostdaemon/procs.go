package hostdaemon

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"
)

// Proc names one process: a pid and its start time, in clock ticks after
// boot (/proc/PID/stat field 22, proc(5)). A pid reused by another process
// has another start time, so a recorded Proc never names a stranger.
type Proc struct {
	Name      string `json:"name"`
	PID       int    `json:"pid"`
	StartTime uint64 `json:"startTime"`
}

func (p Proc) String() string { return fmt.Sprintf("%s (pid %d)", p.Name, p.PID) }

// procOf reads the start time of pid.
func procOf(name string, pid int) (Proc, error) {
	pr, err := procfs.NewProc(pid)
	if err != nil {
		return Proc{}, err
	}
	st, err := pr.Stat()
	if err != nil {
		return Proc{}, err
	}
	if name == "" {
		name = st.Comm
	}
	return Proc{Name: name, PID: pid, StartTime: st.Starttime}, nil
}

// Alive says the recorded process still runs (same pid, same start time,
// not a zombie waiting for its parent).
func (p Proc) Alive() bool {
	pr, err := procfs.NewProc(p.PID)
	if err != nil {
		return false
	}
	st, err := pr.Stat()
	return err == nil && st.Starttime == p.StartTime && st.State != "Z" && st.State != "X"
}

// selfAndAncestors are this process and its parents: never stopped (a
// shell that entered the namespace and ran labctl is not the daemon's).
func selfAndAncestors() map[int]bool {
	skip := map[int]bool{}
	for pid := os.Getpid(); pid > 1 && !skip[pid]; {
		skip[pid] = true
		pr, err := procfs.NewProc(pid)
		if err != nil {
			break
		}
		st, err := pr.Stat()
		if err != nil {
			break
		}
		pid = st.PPID
	}
	return skip
}

// netnsProcesses are the processes inside the network namespace bound at
// nsPath (their /proc/PID/ns/net is the same namespace: same device and
// inode), but for this process and its ancestors. Every process the daemon
// starts is born in it (nsenter --net execs the daemon; containerd's shims
// and dockerd's helpers inherit it), so a daemon whose pid was never
// recorded is found too. None when the namespace is gone.
func netnsProcesses(nsPath string) ([]Proc, error) {
	var ns unix.Stat_t
	if err := unix.Stat(nsPath, &ns); err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("network namespace %s: %w", nsPath, err)
	}
	skip := selfAndAncestors()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []Proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || skip[pid] {
			continue
		}
		var st unix.Stat_t
		if unix.Stat(filepath.Join("/proc", e.Name(), "ns", "net"), &st) != nil || st.Dev != ns.Dev || st.Ino != ns.Ino {
			continue
		}
		if p, err := procOf("", pid); err == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// cgroupProcesses are the processes in the containers' cgroup parent
// (daemon.json cgroup-parent, named after the namespace): the containers'
// own processes, which live in namespaces of their own.
func cgroupProcesses(parent string) []Proc {
	seen := map[int]bool{}
	var out []Proc
	for _, d := range cgroupParentDirs(parent) {
		_ = filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || e.Name() != "cgroup.procs" {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			sc := bufio.NewScanner(bytes.NewReader(b))
			for sc.Scan() {
				pid, err := strconv.Atoi(sc.Text())
				if err != nil || seen[pid] {
					continue
				}
				seen[pid] = true
				if p, err := procOf("", pid); err == nil {
					out = append(out, p)
				}
			}
			return nil
		})
	}
	return out
}

func cmdline(pid int) string {
	pr, err := procfs.NewProc(pid)
	if err != nil {
		return ""
	}
	c, _ := pr.CmdLine()
	return fmt.Sprint(c)
}
