package testenv

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

func TestRewritePorts(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		old, now []int
		want     []string
	}{
		{"flag=port", []string{"--secure-port=41234", "--v=1"}, []int{41234}, []int{50001}, []string{"--secure-port=50001", "--v=1"}},
		{"host:port", []string{"--server-address=127.0.0.1:41234"}, []int{41234}, []int{50001}, []string{"--server-address=127.0.0.1:50001"}},
		{"bare value after its flag", []string{"--client-port", "41234", "--peer-port", "41235"}, []int{41234, 41235}, []int{50001, 50002},
			[]string{"--client-port", "50001", "--peer-port", "50002"}},
		{"a dependency's port is not the component's", []string{"--proxy-server-port=40000", "--admin-server-port=41234"}, []int{41234},
			[]int{50001},
			[]string{"--proxy-server-port=40000", "--admin-server-port=50001"}},
		{"a longer number ending in the port stays", []string{"--x=141234", "--y=a41234"}, []int{41234}, []int{50001},
			[]string{"--x=141234", "--y=a41234"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := rewritePorts(tc.args, tc.old, tc.now); !slices.Equal(got, tc.want) {
				t.Errorf("rewritePorts(%q) = %q, want %q", tc.args, got, tc.want)
			}
		})
	}
}

// listensOn believes only the process's own sockets: a port that answers
// because another process holds it does not count.
func TestListensOnOwnSocketsOnly(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Skipf("no sleep command: %v", err)
	}
	defer func() { _ = other.Process.Kill(); _ = other.Wait() }()

	if !listensOn(os.Getpid(), []int{port}) {
		t.Errorf("listensOn(self, %d) = false for the test's own listener", port)
	}
	if listensOn(other.Process.Pid, []int{port}) {
		t.Errorf("listensOn(sleep, %d) = true for a port the test process holds", port)
	}
	if listensOn(os.Getpid(), []int{port, freePortForTest(t)}) {
		t.Error("listensOn is true although one of the ports is not listened on")
	}
}

// listeningSockets reads a /proc/net/tcp table recorded on the build machine
// while an environment ran (testdata/proc-net-tcp.txt).
func TestListeningSocketsRecordedTable(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "proc-net-tcp.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got := listeningSockets(string(b))
	for port, inode := range recordedListeners {
		if !slices.Contains(got[port], inode) {
			t.Errorf("port %d: inodes %v, want %s among them", port, got[port], inode)
		}
	}
	for port := range got {
		if _, ok := recordedListeners[port]; !ok {
			t.Errorf("port %d is listed as listening but is not in LISTEN state in the recording", port)
		}
	}
}

func TestLogWatchFindsTextAcrossReads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.log")
	if err := os.WriteFile(path, []byte("old run: bind: address already in use\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &logWatch{path: path, off: fileSize(path)}
	appendTo := func(s string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	if w.contains(addrInUse) {
		t.Fatal("found the text in the log of an earlier attempt")
	}
	appendTo("listen tcp 127.0.0.1:4123: bind: address alr")
	if w.contains(addrInUse) {
		t.Fatal("found the text before it was written")
	}
	appendTo("eady in use\n")
	if !w.contains(addrInUse) {
		t.Fatal("did not find the text split across two writes")
	}
}

// fakeComponentEnv makes the test binary act as a component (TestMain): it
// listens on each port given as --port=N and, when a bind fails, logs the
// error and exits, or with --stay keeps running as konnectivity does.
const fakeComponentEnv = "GPULAB_TEST_FAKE_COMPONENT"

func runFakeComponent() {
	stay := false
	var ls []net.Listener
	for _, a := range os.Args[1:] {
		if a == "--stay" {
			stay = true
		}
		if v, ok := strings.CutPrefix(a, "--port="); ok {
			l, err := net.Listen("tcp", "127.0.0.1:"+v)
			if err != nil {
				fmt.Fprintln(os.Stderr, "fake component:", err)
				if !stay {
					os.Exit(1)
				}
				continue
			}
			ls = append(ls, l)
		}
	}
	select {}
}

// startBound starts a component again on new ports when another process
// holds one of its ports, for components that exit on a lost bind and for
// those that keep running without the listener.
func TestStartBoundMovesComponentOffTakenPort(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Parallel with the package's environments, not with itself: the two
	// runs draw from the same ports below the ephemeral range. The fake
	// component is told what it is through its own environment.
	t.Parallel()
	for _, stay := range []bool{false, true} {
		t.Run(fmt.Sprintf("stays running=%v", stay), func(t *testing.T) {
			// Its ports, and the free one below, come from outside the
			// kernel's ephemeral range: the solo environment boots meanwhile
			// beside a squatter binding an ephemeral port every millisecond
			// (contention_test.go), which took a replacement port now and
			// then and made a second rebind (soak, 1 in ~12 runs).
			ports := &portAllocator{probe: belowEphemeral(t)}
			e := &Env{log: slog.New(slog.DiscardHandler), ports: ports, grace: 0, workDir: t.TempDir()}
			e.ctx, e.cancel = context.WithCancel(context.Background())
			defer e.Stop()
			squat, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer squat.Close()
			taken := squat.Addr().(*net.TCPAddr).Port
			free, err := ports.free()
			if err != nil {
				t.Fatal(err)
			}
			a, b := free, taken
			args := []string{"--port=" + strconv.Itoa(a), "--port=" + strconv.Itoa(b)}
			if stay {
				args = append(args, "--stay")
			}
			movedCalls := 0
			p, err := e.startBound(context.Background(), "fake", self, args, filepath.Join(e.workDir, "fake.log"), []*int{&a, &b}, func() error {
				movedCalls++
				return nil
			}, fakeComponentEnv+"=1")
			if err != nil {
				t.Fatalf("startBound: %v\nlog:\n%s", err, bincache.TailFile(filepath.Join(e.workDir, "fake.log"), 20))
			}
			if b == taken {
				t.Errorf("port %d held by another listener was kept", taken)
			}
			if !listensOn(p.pid(), []int{a, b}) {
				t.Errorf("final process does not listen on its ports %d, %d", a, b)
			}
			if got := e.rebindCounts()["fake"]; got != 1 || movedCalls != 1 {
				t.Errorf("rebinds %d, moved called %d times; want 1 and 1", got, movedCalls)
			}
			if procs := e.Processes(); len(procs) != 1 || procs[0].PID != p.pid() {
				t.Errorf("environment lists %v; want only the final process %d", procs, p.pid())
			}
		})
	}
}

// freePortForTest returns a port nothing listens on right now (the test
// only needs one that is unlikely to be taken, not one that stays free).
func freePortForTest(t *testing.T) int {
	t.Helper()
	p, err := newPortAllocator(nil).free()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// squatter takes ports away from the environment: it keeps the probe
// listeners of the first n ports proposed to components (so each of those
// components' first bind fails), and, while churning, binds and releases
// an ephemeral port on loopback every tick, holding up to max at a time, as
// a busy machine does.
type squatter struct {
	mu    sync.Mutex
	first int
	held  []net.Listener
	stop  chan struct{}
	done  chan struct{}
	binds int
}

func (s *squatter) keep(l net.Listener) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.first <= 0 {
		return false
	}
	s.first--
	s.held = append(s.held, l)
	return true
}

func (s *squatter) churn(max int, every time.Duration) {
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.done)
		var ring []net.Listener
		defer func() {
			for _, l := range ring {
				l.Close()
			}
		}()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-tick.C:
			}
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				continue
			}
			s.mu.Lock()
			s.binds++
			s.mu.Unlock()
			ring = append(ring, l)
			if len(ring) > max {
				ring[0].Close()
				ring = ring[1:]
			}
		}
	}()
}

func (s *squatter) close() {
	if s.stop != nil {
		close(s.stop)
		<-s.done
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.held {
		l.Close()
	}
}

// recordedListeners are the LISTEN sockets of testdata/proc-net-tcp.txt:
// 28 lines of the table /proc/net/tcp showed (Linux 6.18, 2026-12-01) while
// an environment ran, unchanged. The table also holds accepted connections
// on those ports (state 01) and other sockets, which are not listeners.
var recordedListeners = map[int]string{
	45377: "1875618", 42181: "1875749", 42141: "1875620", 33543: "1876725",
	41473: "1875674", 41141: "1879380", 41073: "1875755", 36815: "1879155",
}

// belowEphemeral probes ports just below the kernel's ephemeral range
// (net.ipv4.ip_local_port_range), which the kernel never hands to another
// process's bind to port 0 or outgoing connection: only a process naming
// the port could take it, and none here does.
func belowEphemeral(t *testing.T) func() (net.Listener, error) {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		t.Skipf("no ephemeral port range to stay out of: %v", err)
	}
	var lo, hi int
	if _, err := fmt.Sscan(string(b), &lo, &hi); err != nil || lo < 2048 {
		t.Skipf("ephemeral port range %q leaves no room below it", strings.TrimSpace(string(b)))
	}
	next := lo - 1024 + rand.IntN(512) // 512 candidates, tried in turn
	return func() (net.Listener, error) {
		for range 512 {
			next++
			if next >= lo {
				next = lo - 1024
			}
			if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(next)); err == nil {
				return l, nil
			}
		}
		return nil, fmt.Errorf("no free port in [%d, %d)", lo-1024, lo)
	}
}
