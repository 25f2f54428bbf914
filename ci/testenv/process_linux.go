package testenv

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/prometheus/procfs"
)

// sysProcAttr puts the child in its own process group and kills it when the
// starting process dies, so a test binary killed by its timeout leaves
// nothing behind even though no Cleanup runs.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// listensOn reports whether the process pid itself holds a listening TCP
// socket on each port: a port answering a dial may belong to whoever took
// it, so the listening sockets (listenerTables) are matched by inode
// against the process's own file descriptors (proc(5): /proc/<pid>/fd).
func listensOn(pid int, ports []int) bool {
	dir := "/proc/" + strconv.Itoa(pid)
	tables := listenerTables(dir)
	// Most calls come while the component is still starting: no listener
	// on the port at all needs no look at its file descriptors.
	for _, port := range ports {
		if !slices.ContainsFunc(tables, func(t map[int][]string) bool { return len(t[port]) > 0 }) {
			return false
		}
	}
	proc, err := procfs.NewProc(pid)
	if err != nil {
		return false
	}
	links, err := proc.FileDescriptorTargets()
	if err != nil {
		return false
	}
	inodes := map[string]bool{}
	for _, l := range links {
		if ino, ok := socketInode(l); ok {
			inodes[ino] = true
		}
	}
	have := map[int]bool{}
	for _, listeners := range tables {
		for port, ino := range listeners {
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

// socketInode is the inode a /proc/<pid>/fd link names when the fd is a
// socket ("socket:[<inode>]", proc(5)).
func socketInode(link string) (string, bool) {
	ino, ok := strings.CutPrefix(link, "socket:[")
	return strings.TrimSuffix(ino, "]"), ok
}

// listenerTables returns the listening TCP sockets by port: from
// sock_diag (diagListeners), or, on a kernel without it, from the process
// dir's /proc tables, one per address family.
func listenerTables(dir string) []map[int][]string {
	if l, err := diagListeners(); err == nil {
		return []map[int][]string{l}
	}
	return procListeners(dir)
}

// procListeners reads the listening sockets from the process dir's /proc
// tables, one per address family.
func procListeners(dir string) []map[int][]string {
	var out []map[int][]string
	for _, table := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(dir + "/net/" + table)
		if err != nil {
			continue // no tcp6 table without IPv6
		}
		out = append(out, listeningSockets(string(b)))
	}
	return out
}

// listeningSockets reads a /proc/net/tcp or tcp6 table: for each local port
// with sockets in state LISTEN (0A), their inodes. Columns (proc(5)): sl,
// local_address (hex address:hex port), rem_address, st, tx_queue:rx_queue,
// tr:tm->when, retrnsmt, uid, timeout, inode. Not procfs's NetTCP
// (v0.19.2 net_tcp.go, net_ip_socket.go): it reads only the file under a
// mount point and parses every column of every line (addresses, queues,
// uid), failing the table on one it cannot read, where this needs three
// columns, from a table the tests also hand over as recorded text.
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

// suspended reports whether SIGSTOP has taken pid: every thread stopped.
// Read per thread (proc(5): /proc/<pid>/task/*/stat), not from the leader
// alone: a group stop is over once every thread has reached it, and until
// then the others still run the component's code.
func suspended(pid int) bool {
	threads, err := procfs.AllThreads(pid)
	if err != nil {
		return false
	}
	states := make([]string, 0, len(threads))
	for _, t := range threads {
		st, err := t.Stat()
		if err != nil {
			return false
		}
		states = append(states, st.State)
	}
	return allStopped(states)
}

// allStopped tells, from the states of a process's threads (proc(5)
// stat), whether every one is stopped: T by a signal, t by a tracer. A
// zombie thread (Z) runs nothing and is left out; a process of zombies
// alone is not stopped.
func allStopped(states []string) bool {
	stopped := 0
	for _, s := range states {
		switch s {
		case "T", "t":
			stopped++
		case "Z":
		default:
			return false
		}
	}
	return stopped > 0
}

// threadStates lists how many of pid's threads are in each state, and the
// kernel function each thread outside T or t waits in (proc(5): stat,
// wchan): a group stop ends only once every thread has reached it, and a
// thread in uninterruptible sleep (D) reaches it when that wait ends. When
// /proc does not show a SIGSTOPped component stopped, this says which
// thread held it back.
func threadStates(pid int) string {
	threads, err := procfs.AllThreads(pid)
	if err != nil {
		return "threads unreadable: " + err.Error()
	}
	count := map[string]int{}
	var held []string
	for _, t := range threads {
		st, err := t.Stat()
		if err != nil {
			continue
		}
		count[st.State]++
		if st.State != "T" && st.State != "t" {
			w, _ := t.Wchan()
			held = append(held, fmt.Sprintf("%d %s %s", t.PID, st.State, w))
		}
	}
	var parts []string
	for _, s := range slices.Sorted(maps.Keys(count)) {
		parts = append(parts, fmt.Sprintf("%d %s", count[s], s))
	}
	out := "threads: " + strings.Join(parts, ", ")
	if len(held) > 0 {
		out += "; not stopped (tid state wchan): " + strings.Join(held, "; ")
	}
	return out
}
