package hamidouble

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestEveryLogLineSaysItIsADouble: nobody may mistake the double for HAMi.
func TestEveryLogLineSaysItIsADouble(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	e := newEnv(t, Config{Log: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	p := slicePod(e, "p", nodeA)
	e.schedule(p, nodeA)
	e.schedule(slicePod(e, "q", nodeA), nodeA) // contention: a warning path
	e.d.setFaults(Faults{})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) < 5 {
		t.Fatalf("only %d log lines: %q", len(lines), buf.String())
	}
	for _, l := range lines {
		if !strings.Contains(l, "msg=\""+Banner) {
			t.Errorf("log line without the banner in its message: %s", l)
		}
	}
}

func TestStartAndReadiness(t *testing.T) {
	t.Parallel()
	d := newDouble(Config{})
	if err := d.start(context.Background()); err == nil || !strings.Contains(err.Error(), "Config.Client") {
		t.Errorf("Start without a client: %v, want an error naming Config.Client", err)
	}
	e := newEnv(t, Config{})
	if err := e.d.start(e.ctx); err == nil {
		t.Error("second Start succeeded, want an error")
	}
	for path, want := range map[string]int{"/healthz": http.StatusOK, "/readyz": http.StatusOK} {
		resp, err := http.Get(e.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s = %d, want %d", path, resp.StatusCode, want)
		}
	}
	rec := httptest.NewRecorder()
	newDouble(Config{}).handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("readyz before Start = %d, want 503", rec.Code)
	}
	rec = httptest.NewRecorder()
	e.d.handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/filter", strings.NewReader("{")))
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), Banner) {
		t.Errorf("bad filter body: %d %q, want 400 naming the double", rec.Code, rec.Body.String())
	}
}
