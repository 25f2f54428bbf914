package testenv

import (
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/procfs"
)

// residentMemory returns the resident set size in bytes of every running
// process the environment started, by process name (see Processes), and
// their sum. The in-process parts (HAMi double, bind finalizer) live in the
// caller's process and are not included. Linux only (reads /proc).
func (e *Env) residentMemory() (total int64, byName map[string]int64, err error) {
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
	st, err := readStatus(pid)
	return int64(st.VmRSS), err
}

// processMemory is one process's resident memory, split as
// /proc/<pid>/status splits VmRSS (proc(5)).
type processMemory struct {
	// Anon is RssAnon + RssShmem: memory of this process alone.
	Anon int64
	// File is RssFile: pages of mapped files, here the executable's text
	// and data, which the page cache holds once for every process running
	// that executable.
	File int64
}

// memoryUse is what the environment's processes hold in RAM, in bytes.
type memoryUse struct {
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
	ByName map[string]processMemory
}

// memory measures the resident memory of every running process the
// environment started. The in-process parts (webhook relay, registrar,
// bind finalizer) live in the caller's process and are not included.
// Linux only (reads /proc).
func (e *Env) memory() (memoryUse, error) {
	u := memoryUse{ByName: map[string]processMemory{}}
	fileOf := map[string]int64{} // executable → most resident file pages
	e.mu.Lock()
	procs := append([]*process(nil), e.procs...)
	e.mu.Unlock()
	for _, p := range procs {
		st, err := readStatus(p.pid())
		if err == nil && st.VmRSS != st.RssAnon+st.RssFile+st.RssShmem {
			// The kernel's VmRSS is the sum of the three (proc(5)); they
			// are missing before Linux 4.5, and procfs reads a missing
			// line as 0.
			err = fmt.Errorf("VmRSS %d B is not RssAnon + RssFile + RssShmem (%d + %d + %d B): a kernel without them?", st.VmRSS, st.RssAnon,
				st.RssFile, st.RssShmem)
		}
		if err != nil {
			return memoryUse{}, fmt.Errorf("resident memory of %s (pid %d): %w", p.name, p.pid(), err)
		}
		pm := processMemory{Anon: int64(st.RssAnon + st.RssShmem), File: int64(st.RssFile)}
		u.ByName[p.name] = pm
		u.RSS += int64(st.VmRSS)
		u.Total += pm.Anon
		fileOf[p.cmd.Path] = max(fileOf[p.cmd.Path], pm.File)
	}
	for _, f := range fileOf {
		u.Total += f
	}
	return u, nil
}

// readStatus reads /proc/<pid>/status (sizes in bytes). A zombie's
// status has no memory lines, which procfs reads as 0: no VmRSS is an
// error, as a running process always has resident pages.
func readStatus(pid int) (procfs.ProcStatus, error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return procfs.ProcStatus{}, err
	}
	st, err := p.NewStatus()
	if err == nil && st.VmRSS == 0 {
		err = errors.New("no VmRSS (a zombie?)")
	}
	return st, err
}

// cpuTime returns the processor time (user and system) every running
// process the environment started has used so far, by process name. Unlike
// a wall-clock boot time it hardly depends on what else the machine runs,
// so it shows where a start's work goes. Linux only (reads /proc).
func (e *Env) cpuTime() (map[string]time.Duration, error) {
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
// (proc(5)), in clock ticks.
func processCPU(pid int) (time.Duration, error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0, err
	}
	st, err := p.Stat()
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return time.Duration(st.UTime+st.STime) * time.Second / userHZ, nil
}
