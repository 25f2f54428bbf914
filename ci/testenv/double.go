package testenv

import (
	"context"
	"fmt"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/gpus"

	"github.com/gpu-lab/gpu-lab/ci/testenv/hamidouble"
)

// startDouble starts the tenant's HAMi protocol double and its listeners.
// The double is test infrastructure standing in for HAMi's scheduler
// extender and webhook; it is never presented as HAMi (see DoubleNotice).
func (t *tenant) startDouble(ctx context.Context) error {
	lockTimeout, err := time.ParseDuration(t.env.lab.HAMi.NodeLockTimeout)
	if err != nil && t.env.lab.HAMi.NodeLockTimeout != "" {
		return fmt.Errorf("lab hami.nodeLockTimeout %q: %w", t.env.lab.HAMi.NodeLockTimeout, err)
	}
	t.double = hamidouble.New(hamidouble.Config{
		Client:          t.client,
		SchedulerName:   gpus.SchedulerName,
		NodeLockTimeout: lockTimeout,
		Log:             t.env.log.With("tenant", t.name()),
	})
	if err := t.double.Start(t.env.ctx); err != nil {
		return err
	}
	return t.serveDouble(t.env.ctx)
}
