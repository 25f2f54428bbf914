package stages

import (
	"context"
	"fmt"
	"log/slog"
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

// wait is waitLogged with the env's poll interval and logger.
func (e *Env) wait(ctx context.Context, timeout time.Duration, what string, f condFunc) (string, error) {
	return waitLogged(ctx, timeout, e.poll(), e.log(), what, f)
}

// helm runs helm and logs the command line at debug level.
func (e *Env) helm(ctx context.Context, kubeconfig string, args ...string) ([]byte, error) {
	e.log().Debug("helm", "kubeconfig", kubeconfig, "args", args)
	return e.Helm.Run(ctx, kubeconfig, args...)
}
