package testenv

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
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
	m, err := readStatus(pid, "VmRSS")
	return m["VmRSS"], err
}

// ProcessMemory is one process's resident memory, split as
// /proc/<pid>/status splits VmRSS (proc(5)).
type ProcessMemory struct {
	// Anon is RssAnon + RssShmem: memory of this process alone.
	Anon int64
	// File is RssFile: pages of mapped files, here the executable's text
	// and data, which the page cache holds once for every process running
	// that executable.
	File int64
}

// MemoryUse is what the environment's processes hold in RAM, in bytes.
type MemoryUse struct {
	// Total counts every page once: each process's Anon, plus the File
	// pages of each executable once (the most any of its instances has
	// resident, as instances of one binary touch the same pages). This is
	// the memory the machine gives the environment; it does not depend on
	// whether other programs run the same binaries, as the proportional
	// set size (Pss) would.
	Total int64
	// RSS sums every process's VmRSS, counting an executable's pages once
	// per process that runs it: more than the machine gives, by about a
	// binary's resident text for every further instance.
	RSS int64
	// ByName is each process's share, by process name (see Processes).
	ByName map[string]ProcessMemory
}

// Memory measures the resident memory of every running process the
// environment started. The in-process parts (webhook relay, registrar,
// bind finalizer) live in the caller's process and are not included.
// Linux only (reads /proc).
func (e *Env) Memory() (MemoryUse, error) {
	u := MemoryUse{ByName: map[string]ProcessMemory{}}
	fileOf := map[string]int64{} // executable → most resident file pages
	e.mu.Lock()
	procs := append([]*process(nil), e.procs...)
	e.mu.Unlock()
	for _, p := range procs {
		m, err := readStatus(p.pid(), "VmRSS", "RssAnon", "RssFile", "RssShmem")
		if err != nil {
			return MemoryUse{}, fmt.Errorf("resident memory of %s (pid %d): %w", p.name, p.pid(), err)
		}
		pm := ProcessMemory{Anon: m["RssAnon"] + m["RssShmem"], File: m["RssFile"]}
		u.ByName[p.name] = pm
		u.RSS += m["VmRSS"]
		u.Total += pm.Anon
		fileOf[p.cmd.Path] = max(fileOf[p.cmd.Path], pm.File)
	}
	for _, f := range fileOf {
		u.Total += f
	}
	return u, nil
}

// readStatus reads the named "kB" fields of /proc/<pid>/status, in bytes;
// every one must be there.
func readStatus(pid int, fields ...string) (map[string]int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	want := map[string]bool{}
	for _, n := range fields {
		want[n] = true
	}
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || !want[name] {
			continue
		}
		fs := strings.Fields(v) // "123456 kB"
		if len(fs) != 2 || fs[1] != "kB" {
			return nil, fmt.Errorf("%s %q: unexpected format", name, v)
		}
		kb, err := strconv.ParseInt(fs[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = kb * 1024
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, n := range fields {
		if _, ok := out[n]; !ok {
			return nil, fmt.Errorf("no %s (a zombie?)", n)
		}
	}
	return out, nil
}

// CPUTime returns the processor time (user and system) every running
// process the environment started has used so far, by process name. Unlike
// a wall-clock boot time it hardly depends on what else the machine runs,
// so it shows where a start's work goes. Linux only (reads /proc).
func (e *Env) CPUTime() (map[string]time.Duration, error) {
	out := map[string]time.Duration{}
	for _, p := range e.Processes() {
		d, err := processCPU(p.PID)
		if err != nil {
			return nil, fmt.Errorf("processor time of %s (pid %d): %w", p.Name, p.PID, err)
		}
		out[p.Name] = d
	}
	return out, nil
}

// userHZ is the unit of the times in /proc/<pid>/stat: clock ticks of
// sysconf(_SC_CLK_TCK), which Linux fixes at 100 (USER_HZ) for user space.
const userHZ = 100

// processCPU reads utime and stime, fields 14 and 15 of /proc/<pid>/stat
// (proc(5)), counted after the command name in parentheses, which may hold
// spaces.
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat has %d fields after the command", pid, len(f))
	}
	var ticks int64
	for _, v := range f[11:13] { // fields 14 (utime) and 15 (stime)
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}
