package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/gpu-lab/gpu-lab/ci/results"
	"github.com/gpu-lab/gpu-lab/ci/suite"
	"github.com/gpu-lab/gpu-lab/ci/testenv"
)

// hookHandler shows every record of the suite's log (steps are at debug
// level) to on, synchronously: the suite waits while on makes a fault, so
// the fault is in place before the case takes its next step. Records are
// passed on at the wrapped handler's level.
type hookHandler struct {
	slog.Handler
	on func(msg string, attrs map[string]string)
}

func (h *hookHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *hookHandler) Handle(ctx context.Context, r slog.Record) error {
	attrs := map[string]string{}
	r.Attrs(func(a slog.Attr) bool {
		attrs[a.Key] = a.Value.String()
		return true
	})
	h.on(r.Message, attrs)
	if h.Handler.Enabled(ctx, r.Level) {
		return h.Handler.Handle(ctx, r)
	}
	return nil
}

func (h *hookHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &hookHandler{Handler: h.Handler.WithAttrs(as), on: h.on}
}

func (h *hookHandler) WithGroup(name string) slog.Handler {
	return &hookHandler{Handler: h.Handler.WithGroup(name), on: h.on}
}

// syncLog is an environment's log, read by the test while it is written.
type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncLog) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// stopAndCheckNothingLeft stops the environment and checks that none of
// its processes runs and its work dir is gone.
func stopAndCheckNothingLeft(t *testing.T, e *testenv.Env) {
	t.Helper()
	procs := e.Processes()
	cmdlines := map[int][]byte{}
	for _, p := range procs {
		cmdlines[p.PID], _ = os.ReadFile("/proc/" + strconv.Itoa(p.PID) + "/cmdline")
	}
	dir := e.WorkDir()
	if err := e.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	for _, p := range procs {
		// The same PID with the same command line is the same process
		// (a reused PID runs something else).
		now, err := os.ReadFile("/proc/" + strconv.Itoa(p.PID) + "/cmdline")
		if err == nil && len(now) > 0 && bytes.Equal(now, cmdlines[p.PID]) {
			t.Errorf("%s (pid %d) still runs after Stop", p.Name, p.PID)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("work dir %s still exists after Stop (%v)", dir, err)
	}
}

// noSuiteNamespaces checks that the tenants have no namespace of the suite
// that is not being deleted (the namespace controller removes a deleted
// one in the background, within seconds). A tenant that does not answer
// at once after a fault is asked again; the bound only ends a broken test.
func noSuiteNamespaces(t *testing.T, e *testenv.Env, tenants ...string) {
	t.Helper()
	sel := metav1.ListOptions{LabelSelector: suite.LabelSuite}
	for _, tn := range tenants {
		cs := clientOf(t, e, tn)
		var left []string
		var last error
		err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 90*time.Second, true,
			func(ctx context.Context) (bool, error) {
				l, err := cs.CoreV1().Namespaces().List(ctx, sel)
				if last = err; err != nil {
					return false, nil
				}
				left = left[:0]
				for _, ns := range l.Items {
					if ns.DeletionTimestamp == nil {
						left = append(left, ns.Name)
					}
				}
				return true, nil
			})
		switch {
		case err != nil:
			t.Errorf("tenant %s: list namespaces: %v (%v)", tn, last, err)
		case len(left) > 0:
			t.Errorf("tenant %s: suite namespaces left, not being deleted: %v", tn, left)
		}
	}
}

// createdNamespace is the namespace the case says it created in the
// tenant ("namespace NAME created in TENANT"), or "".
func createdNamespace(c results.Case, tenant string) string {
	for _, s := range c.Steps {
		var ns, tn string
		if n, _ := fmt.Sscanf(s.Message, "namespace %s created in %s", &ns, &tn); n == 2 && tn == tenant {
			return ns
		}
	}
	return ""
}

// deleteNamespace removes a namespace the suite could not.
func deleteNamespace(t *testing.T, e *testenv.Env, tenant, ns string) {
	t.Helper()
	err := clientOf(t, e, tenant).CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("tenant %s: delete namespace %s the suite left: %v", tenant, ns, err)
	}
}

// waitLogLine waits until the environment's log has a line with want (a
// synchronisation point: the environment looks at its processes every
// 250 ms; the bound only ends a broken test).
func waitLogLine(t *testing.T, log *syncLog, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(log.String(), want) {
		if time.Now().After(deadline) {
			t.Errorf("the environment's log has no line %q:\n%s", want, log.String())
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
