package registry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/owndir"
	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

// Start runs the registry binary inside the network namespace at nsPath
// (nsenter --net, as the private daemon's own processes run), detached,
// with its state under l, and waits until it answers /v2/ there. A
// registry of l that is already running is left as it is.
func Start(ctx context.Context, log *slog.Logger, l Layout, nsPath, binary string) error {
	if pid, ok := running(l); ok {
		log.Info("registry already running", "pid", pid, "dir", l.Dir)
		return waitReady(ctx, l, nsPath, pid)
	}
	if err := os.MkdirAll(l.storage(), 0o755); err != nil {
		return fmt.Errorf("registry state %s: %w", l.Dir, err)
	}
	if err := os.WriteFile(l.config(), []byte(config(l)), 0o644); err != nil {
		return fmt.Errorf("registry config: %w", err)
	}
	logf, err := os.OpenFile(l.log(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command("nsenter", "--net="+nsPath, "--", binary, "serve", l.config())
	// autoexport's default OTLP exporter would only log failed sends to
	// an absent collector (distribution@v3.1.1 tracing/tracing.go:44).
	cmd.Env = append(os.Environ(), "OTEL_TRACES_EXPORTER=none")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the registry (nsenter --net=%s %s): %w", nsPath, binary, err)
	}
	pid := cmd.Process.Pid
	go func() { _ = cmd.Wait() }() // reaps it should it exit while we run
	if err := os.WriteFile(l.pidFile(), []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		return err
	}
	log.Info("registry started", "pid", pid, "port", Port, "storage", l.storage(), "log", l.log())
	return waitReady(ctx, l, nsPath, pid)
}

// waitReady polls /v2/ on the namespace's loopback until it answers 200.
func waitReady(ctx context.Context, l Layout, nsPath string, pid int) error {
	c := Client(nsPath)
	deadline := time.Now().Add(30 * time.Second)
	u := "http://" + Addr("127.0.0.1") + "/v2/"
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if !alive(pid) {
			return fmt.Errorf("the registry (pid %d) exited; %s ends with:\n%s", pid, l.log(), bincache.TailFile(l.log(), 20))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the registry (pid %d) does not answer %s after 30 s (last error %v); log %s", pid, u, err, l.log())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// running is l's registry process, when its pid file names a live process
// serving l's config (a reused pid is not ours).
func running(l Layout) (int, bool) {
	b, err := os.ReadFile(l.pidFile())
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || !bytes.Contains(cmdline, []byte(l.config())) {
		return 0, false
	}
	return pid, alive(pid)
}

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// a zombie has exited: field 3 of stat is its state
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// Stop ends l's registry (SIGTERM, then SIGKILL after 15 s) and removes
// its pid file; the storage stays for the next Start.
func Stop(ctx context.Context, log *slog.Logger, l Layout) error {
	pid, ok := running(l)
	if !ok {
		_ = os.Remove(l.pidFile())
		log.Info("registry not running", "dir", l.Dir)
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stopping the registry (pid %d): %w", pid, err)
	}
	for i := 0; i < 50 && alive(pid); i++ {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
	}
	if alive(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		time.Sleep(time.Second)
	}
	if alive(pid) {
		return fmt.Errorf("the registry (pid %d) is still running after SIGKILL", pid)
	}
	log.Info("registry stopped", "pid", pid)
	return os.Remove(l.pidFile())
}

// Remove deletes what Start made in l — its configuration, storage, pid
// file and log — and then l.Dir if nothing else is in it; a running
// registry is refused. It is for a caller that made the registry for one
// run inside a daemon's directory (rehearse dagger run): the daemon
// removes only its own files, so a registry left there would keep the
// directory, and the next run would find a daemon directory without its
// marker.
func Remove(l Layout) error {
	if pid, ok := running(l); ok {
		return fmt.Errorf("the registry in %s is still running (pid %d): stop it first", l.Dir, pid)
	}
	for _, p := range []string{l.config(), l.storage(), l.pidFile(), l.log()} {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("remove the registry's %s: %w", p, err)
		}
	}
	return owndir.RemoveIfEmpty(l.Dir, "the registry")
}
