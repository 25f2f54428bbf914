package hamidouble

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// refusingLimiter never grants a token.
type refusingLimiter struct{ flowcontrol.RateLimiter }

func (refusingLimiter) Wait(context.Context) error { return errors.New("no token") }

// apiServer answers every request with a Node and counts the requests.
func apiServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"Node","apiVersion":"v1","metadata":{"name":"n"}}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestClientThrottledLikeHAMi: from a rest.Config the double builds its
// client with one token bucket of --kube-qps / --kube-burst (5 / 10 by
// default), every request asks it for a token, NoThrottle skips it, and a
// pre-built Client is used as given.
func TestClientThrottledLikeHAMi(t *testing.T) {
	t.Parallel()
	srv, served := apiServer(t)
	for _, tc := range []struct {
		cfg        Config
		qps        float32
		burst      int
		throttling bool
	}{
		{Config{Rest: &rest.Config{Host: srv.URL}}, 5, 10, true},
		{Config{Rest: &rest.Config{Host: srv.URL, QPS: 100, Burst: 200}, KubeQPS: 20, KubeBurst: 40}, 20, 40, true},
		{Config{Rest: &rest.Config{Host: srv.URL}, KubeQPS: -1}, 0, 0, false},
	} {
		d := newDouble(tc.cfg)
		var gotQPS float32
		var gotBurst int
		d.newLimiter = func(qps float32, burst int) flowcontrol.RateLimiter {
			gotQPS, gotBurst = qps, burst
			return flowcontrol.NewFakeAlwaysRateLimiter()
		}
		c, err := d.buildClient()
		if err != nil {
			t.Fatal(err)
		}
		if (d.throttle != nil) != tc.throttling || gotQPS != tc.qps || gotBurst != tc.burst {
			t.Fatalf("%+v: limiter %v qps %v burst %d, want %v %v %d", tc.cfg, d.throttle != nil, gotQPS, gotBurst, tc.throttling, tc.qps, tc.burst)
		}
		before := served.Load()
		for range 12 {
			if _, err := c.CoreV1().Nodes().Get(context.Background(), "n", metav1.GetOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if got := d.throttleStats().Requests; tc.throttling && got != 12 || served.Load()-before != 12 {
			t.Errorf("%+v: %d requests through the limiter, %d served, want 12 each", tc.cfg, got, served.Load()-before)
		}
	}

	d := newDouble(Config{Rest: &rest.Config{Host: srv.URL}})
	d.newLimiter = func(float32, int) flowcontrol.RateLimiter { return refusingLimiter{} }
	c, err := d.buildClient()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().Nodes().Get(context.Background(), "n", metav1.GetOptions{}); err == nil {
		t.Error("a request passed a limiter that grants no token")
	}
	d.setFaults(Faults{NoThrottle: true})
	if _, err := c.CoreV1().Nodes().Get(context.Background(), "n", metav1.GetOptions{}); err != nil {
		t.Errorf("NoThrottle: %v, want the limiter skipped", err)
	}

	if _, err := newDouble(Config{Rest: &rest.Config{Host: srv.URL}, Client: nil}).buildClient(); err != nil {
		t.Error(err)
	}
	both := newDouble(Config{Rest: &rest.Config{Host: srv.URL}, Client: newEnv(t, Config{}).c})
	if _, err := both.buildClient(); err == nil {
		t.Error("Rest and Client both set: no error")
	}
}
