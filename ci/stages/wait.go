package stages

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// condFunc observes something once: ok when it is ready, cond describing
// what was seen. A returned error is treated as a transient condition
// (API servers come and go while a lab starts) and retried until timeout.
type condFunc func(ctx context.Context) (ok bool, cond string, err error)

// waitFor polls f until ok, the timeout or ctx ends. On timeout it returns
// the last condition seen, so the stage error can name it.
func waitFor(ctx context.Context, timeout, poll time.Duration, f condFunc) (string, error) {
	return waitLogged(ctx, timeout, poll, nil, "", f)
}

// waitLogged is waitFor that logs every change of condition at debug level
// (labctl -v), naming what it waits for.
func waitLogged(ctx context.Context, timeout, poll time.Duration, log *slog.Logger, what string, f condFunc) (string, error) {
	last := "not observed yet"
	err := wait.PollUntilContextTimeout(ctx, poll, timeout, true, func(ctx context.Context) (bool, error) {
		ok, cond, err := f(ctx)
		if err != nil && endOfWait(ctx, err) {
			// The wait's own end stopped the request: nothing was seen,
			// and the last observation is what the stage error names.
			return false, nil
		}
		if err != nil {
			cond = err.Error()
		}
		if cond != "" && cond != last && log != nil {
			log.Debug("waiting", "for", what, "condition", cond)
		}
		if cond != "" {
			last = cond
		}
		return ok && err == nil, nil // an error is one more condition: retried
	})
	switch {
	case err == nil:
		return last, nil
	case ctx.Err() != nil:
		return last, ctx.Err()
	default:
		return last, fmt.Errorf("not ready after %s", timeout)
	}
}

// endOfWait says err came from the wait's own deadline or cancellation,
// not from what was observed: the context ended, or client-go's rate
// limiter refused to wait for a token past the deadline
// (golang.org/x/time v0.14.0 rate/rate.go:276, "rate: Wait(n=%d) would
// exceed context deadline", which wraps no context error). A three-tenant
// lab on a loaded machine named that as the tenant control plane's "last
// seen" instead of its status.
func endOfWait(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		strings.Contains(err.Error(), "would exceed context deadline")
}

// wait is waitLogged with the env's poll interval and logger.
func (e *Env) wait(ctx context.Context, timeout time.Duration, what string, f condFunc) (string, error) {
	return waitLogged(ctx, timeout, e.poll(), e.log(), what, f)
}

// helm runs helm and logs the command line at debug level.
func (e *Env) helm(ctx context.Context, kubeconfig string, args ...string) ([]byte, error) {
	e.log().Debug("helm", "kubeconfig", kubeconfig, "args", args)
	return e.Helm.Run(ctx, kubeconfig, args...)
}
