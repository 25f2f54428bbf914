package hamidouble

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// longThrottleLatency is client-go's threshold for logging a client-side
// throttling wait (rest/request.go, "Waited before sending request").
const longThrottleLatency = 50 * time.Millisecond

// ThrottleStats counts the double's own API requests and the time they spent
// waiting for the client-side rate limiter, for benchmarks and reports.
type ThrottleStats struct {
	Requests  int64         // requests that asked the limiter for a token
	Throttled int64         // requests that waited longer than 50 ms
	Waited    time.Duration // total time spent waiting
}

// throttle is the rate limiter the double's clientset uses: client-go's
// token bucket, counted, and bypassed while Faults.NoThrottle is set.
type throttle struct {
	flowcontrol.RateLimiter
	d                          *double
	requests, throttled, nanos atomic.Int64
}

func (t *throttle) Wait(ctx context.Context) error {
	t.requests.Add(1)
	if t.d.currentFaults().NoThrottle {
		return nil
	}
	start := time.Now()
	err := t.RateLimiter.Wait(ctx)
	waited := time.Since(start)
	t.nanos.Add(int64(waited))
	if waited > longThrottleLatency {
		t.throttled.Add(1)
		t.d.log.Debug(Banner+": waited before sending request (client-side throttling, as HAMi's client)", "delay", waited.String())
	}
	return err
}

// Accept is never used by the REST client (it calls Wait); counting it the
// same way keeps the statistics honest if that ever changes.
func (t *throttle) Accept() { _ = t.Wait(context.Background()) }

// buildClient returns the clientset the double talks through. From a
// rest.Config it is a fresh clientset whose one shared token bucket has
// KubeQPS / KubeBurst, which is what kubernetes.NewForConfig builds for
// HAMi (client-go kubernetes/clientset.go NewForConfigAndClient); a negative
// QPS means no limiter, as in client-go.
func (d *double) buildClient() (kubernetes.Interface, error) {
	switch {
	case d.cfg.Rest != nil && d.cfg.Client != nil:
		return nil, fmt.Errorf("%s: set Config.Rest or Config.Client, not both", Banner)
	case d.cfg.Client != nil:
		return d.cfg.Client, nil
	case d.cfg.Rest == nil:
		return nil, fmt.Errorf("%s: Config.Rest and Config.Client are nil: pass the tenant's rest.Config", Banner)
	}
	rc := rest.CopyConfig(d.cfg.Rest)
	rc.QPS, rc.Burst = d.cfg.KubeQPS, d.cfg.KubeBurst
	rc.RateLimiter = nil
	if rc.QPS > 0 {
		d.throttle = &throttle{RateLimiter: d.newLimiter(rc.QPS, rc.Burst), d: d}
		rc.RateLimiter = d.throttle
	}
	c, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("%s: clientset for %s: %w", Banner, rc.Host, err)
	}
	return c, nil
}

// throttleStats reports the double's API requests and throttling waits so
// far; all zero when the double was given a pre-built Client.
func (d *double) throttleStats() ThrottleStats {
	if d.throttle == nil {
		return ThrottleStats{}
	}
	return ThrottleStats{
		Requests:  d.throttle.requests.Load(),
		Throttled: d.throttle.throttled.Load(),
		Waited:    time.Duration(d.throttle.nanos.Load()),
	}
}
