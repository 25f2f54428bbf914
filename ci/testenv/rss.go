package testenv

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ResidentMemory returns the resident set size in bytes of every running
// process the environment started, by process name (see Processes), and
// their sum. The in-process parts (HAMi double, bind finalizer) live in the
// caller's process and are not included. Linux only (reads /proc).
func (e *Env) ResidentMemory() (total int64, byName map[string]int64, err error) {
	byName = map[string]int64{}
	for _, p := range e.Processes() {
		rss, err := processRSS(p.PID)
		if err != nil {
			return 0, nil, fmt.Errorf("resident memory of %s (pid %d): %w", p.Name, p.PID, err)
		}
		byName[p.Name] = rss
		total += rss
	}
	return total, byName, nil
}

// processRSS reads VmRSS from /proc/<pid>/status.
func processRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			f := strings.Fields(v) // "123456 kB"
			if len(f) != 2 || f[1] != "kB" {
				return 0, fmt.Errorf("VmRSS %q: unexpected format", v)
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			return kb * 1024, err
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no VmRSS (a zombie?)")
}
