package run

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// sample is one measurement taken while the lab runs.
type sample struct {
	// DiskBytes is the disk the daemon's state directory (images,
	// containers, the nodes' /var volumes) and labctl's state directory
	// use, in allocated blocks.
	DiskBytes int64
	// MemoryPeakBytes is the kernel's record of the most memory the lab's
	// containers used at once (their cgroup parent; page cache included).
	MemoryPeakBytes int64
}

// max is the larger of each field.
func (s sample) max(o sample) sample {
	return sample{DiskBytes: max(s.DiskBytes, o.DiskBytes), MemoryPeakBytes: max(s.MemoryPeakBytes, o.MemoryPeakBytes)}
}

// memoryPeakFile is the file where the kernel keeps the peak memory usage
// of the cgroup the private daemon puts every container under
// (cgroup-parent in the daemon.json hostdaemon writes). On cgroup v1 it is
// the memory hierarchy's memory.max_usage_in_bytes ("max memory usage recorded",
// Linux Documentation/admin-guide/cgroup-v1/memory.rst), which counts the
// children when memory.use_hierarchy is 1 (it is at the root here, kernel
// 6.18); on v2 memory.peak (cgroup-v2.rst). Both include page
// cache: the report says so.
func memoryPeakFile(cgroupRoot, parent string, v2 bool) string {
	if v2 {
		return filepath.Join(cgroupRoot, parent, "memory.peak")
	}
	return filepath.Join(cgroupRoot, "memory", parent, "memory.max_usage_in_bytes")
}

// readInt reads a file holding one decimal number (a cgroup value).
func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// peakRSS is VmHWM of /proc/PID/status ("peak resident set size",
// proc(5)) in bytes: the most memory a daemon process held.
func peakRSS(status []byte) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("VmHWM line %q: want a number of kB", sc.Text())
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("VmHWM line %q: %w", sc.Text(), err)
		}
		return n * 1024, nil
	}
	return 0, errors.New("no VmHWM line (a kernel thread, or the process has ended)")
}

// diskUsage is the disk space the files under dirs take, as du counts it:
// allocated blocks, each inode once (image layers share files through
// hard links), without crossing into other file systems (the overlay
// mounts of running containers would count every layer twice). A
// directory that does not exist counts 0.
func diskUsage(dirs ...string) (int64, error) {
	seen := map[[2]uint64]bool{}
	var total int64
	for _, dir := range dirs {
		var root syscall.Stat_t
		if err := syscall.Lstat(dir, &root); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return total, fmt.Errorf("disk usage of %s: %w", dir, err)
		}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				// Containers come and go while we walk: a vanished entry
				// is not an error.
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			var st syscall.Stat_t
			if err := syscall.Lstat(p, &st); err != nil {
				return nil
			}
			if st.Dev != root.Dev {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			key := [2]uint64{st.Dev, st.Ino}
			if !seen[key] {
				seen[key] = true
				total += st.Blocks * 512
			}
			return nil
		})
		if err != nil {
			return total, fmt.Errorf("disk usage of %s: %w", dir, err)
		}
	}
	return total, nil
}
