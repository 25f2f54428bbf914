package hostdaemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// startInNetns starts argv inside the network namespace netns (nsenter
// --net, which execs argv: the process is the daemon itself), detached in a
// session of its own and logging to logPath, and returns once the daemon
// tells a notify socket READY=1 — dockerd 20.10.24 and containerd 1.6.20
// both do through $NOTIFY_SOCKET (moby cmd/dockerd/daemon_linux.go:12,
// containerd cmd/containerd/command/notify_linux.go and main.go:274). If it
// exits first, the error names its log and ends with the log's tail.
// containerd's shims do not pass NOTIFY_SOCKET on to runc (containerd
// v1.6.20 vendor/github.com/containerd/go-runc/command_linux.go:36).
//
// started is called with the process as soon as it exists, before it is
// ready: it records the process, so that a labctl killed while waiting
// leaves a record of it.
func startInNetns(ctx context.Context, what, netns, logPath, notifyPath string, started func(Proc) error, argv ...string) (int, error) {
	_ = os.Remove(notifyPath)
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: notifyPath, Net: "unixgram"})
	if err != nil {
		return 0, fmt.Errorf("listen for %s's readiness on %s: %w", what, notifyPath, err)
	}
	defer os.Remove(notifyPath)
	defer conn.Close()

	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return 0, fmt.Errorf("open %s's log: %w", what, err)
	}
	defer logf.Close()
	cmd, exited, err := startRecorded(what, netns, notifyPath, logf, started, argv)
	if err != nil {
		return 0, err
	}
	ready := readiness(conn)
	select {
	case err := <-ready:
		if err != nil {
			_ = cmd.Process.Kill()
			return 0, fmt.Errorf("wait for %s's readiness: %w (its log: %s)", what, err, logPath)
		}
		return cmd.Process.Pid, nil
	case err := <-exited:
		return 0, fmt.Errorf("%s exited before it was ready (%v); its log %s ends with:\n%s", what, err, logPath, tail(logPath, 20))
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		return 0, fmt.Errorf("%s was not ready in time (%w); its log %s ends with:\n%s", what, ctx.Err(), logPath, tail(logPath, 20))
	}
}

// startRecorded starts argv in netns as startInNetns says, logging to
// logf, and hands it to started; exited receives its Wait's error. If
// started fails, the process is killed and waited for.
func startRecorded(what, netns, notifyPath string, logf *os.File, started func(Proc) error,
	argv []string) (*exec.Cmd, <-chan error, error) {
	cmd := exec.Command("nsenter", append([]string{"--net=" + NetnsPath(netns), "--"}, argv...)...)
	cmd.Env = append(os.Environ(), "NOTIFY_SOCKET="+notifyPath)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start %s (nsenter --net=%s %s): %w", what, NetnsPath(netns), strings.Join(argv, " "), err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	p, err := procOf(what, cmd.Process.Pid)
	if err == nil {
		err = started(p)
	}
	if err != nil {
		_ = cmd.Process.Kill()
		<-exited
		return nil, nil, fmt.Errorf("record %s (pid %d): %w", what, cmd.Process.Pid, err)
	}
	return cmd, exited, nil
}

// readiness receives nil once conn, the notify socket, is told READY=1,
// or the error that ended reading it.
func readiness(conn *net.UnixConn) <-chan error {
	ready := make(chan error, 1)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				ready <- err
				return
			}
			for _, line := range strings.Split(string(buf[:n]), "\n") {
				if line == "READY=1" {
					ready <- nil
					return
				}
			}
		}
	}()
	return ready
}

// tail returns the last n lines of a file, for error messages.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// stopProcess sends SIGTERM to the process and waits for it to exit,
// through a pidfd (no polling); after grace it sends SIGKILL and waits
// again. The pidfd is opened before the start time is compared: once it
// matches, the pidfd is that process and no other that reused its pid.
func stopProcess(ctx context.Context, p Proc, grace time.Duration) error {
	pid := p.PID
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pidfd_open %d: %w", pid, err)
	}
	defer unix.Close(fd)
	if !p.Alive() {
		return nil
	}
	if err := unix.PidfdSendSignal(fd, unix.SIGTERM, nil, 0); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("signal %d: %w", pid, err)
	}
	if waitPidfd(ctx, fd, grace) {
		return nil
	}
	if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("kill %d: %w", pid, err)
	}
	if waitPidfd(ctx, fd, 30*time.Second) {
		return nil
	}
	return fmt.Errorf("process %d did not exit after SIGKILL", pid)
}

// waitPidfd reports whether the process of the pidfd exited within d
// (or before ctx ended).
func waitPidfd(ctx context.Context, fd int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	for {
		ms := int(time.Until(deadline).Milliseconds())
		if ms <= 0 {
			return false
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, ms)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n > 0
	}
}
