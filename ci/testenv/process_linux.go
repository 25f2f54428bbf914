package testenv

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// sysProcAttr puts the child in its own process group and kills it when the
// starting process dies, so a test binary killed by its timeout leaves
// nothing behind even though no Cleanup runs.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// listensOn reports whether the process pid itself holds a listening TCP
// socket on each port: a port answering a dial may belong to whoever took
// it, so the sockets are matched by inode against the process's own file
// descriptors (proc(5): /proc/<pid>/fd, /proc/<pid>/net/tcp).
func listensOn(pid int, ports []int) bool {
	dir := "/proc/" + strconv.Itoa(pid)
	fds, err := os.ReadDir(dir + "/fd")
	if err != nil {
		return false
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		if l, err := os.Readlink(dir + "/fd/" + fd.Name()); err == nil {
			if ino, ok := strings.CutPrefix(l, "socket:["); ok {
				inodes[strings.TrimSuffix(ino, "]")] = true
			}
		}
	}
	have := map[int]bool{}
	for _, table := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(dir + "/net/" + table)
		if err != nil {
			continue // no tcp6 table without IPv6
		}
		for port, ino := range listeningSockets(string(b)) {
			for _, i := range ino {
				if inodes[i] {
					have[port] = true
				}
			}
		}
	}
	for _, p := range ports {
		if !have[p] {
			return false
		}
	}
	return true
}

// listeningSockets reads a /proc/net/tcp or tcp6 table: for each local port
// with sockets in state LISTEN (0A), their inodes. Columns (proc(5)): sl,
// local_address (hex address:hex port), rem_address, st, tx_queue:rx_queue,
// tr:tm->when, retrnsmt, uid, timeout, inode.
func listeningSockets(table string) map[int][]string {
	out := map[int][]string{}
	lines := strings.Split(table, "\n")
	for _, line := range lines[min(1, len(lines)):] { // the first line names the columns
		f := strings.Fields(line)
		if len(f) < 10 || f[3] != "0A" {
			continue
		}
		i := strings.LastIndexByte(f[1], ':')
		if i < 0 {
			continue
		}
		port, err := strconv.ParseUint(f[1][i+1:], 16, 16)
		if err != nil {
			continue
		}
		out[int(port)] = append(out[int(port)], f[9])
	}
	return out
}

// suspended reports whether pid is stopped by a signal (state T in
// /proc/<pid>/stat, proc(5)) or by a tracer (t).
func suspended(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // comm may hold spaces
	return len(fields) > 0 && (fields[0] == "T" || fields[0] == "t")
}
