package stages

import (
	"context"
	"log/slog"

	"github.com/sourcegraph/conc/pool"
)

// sideBySide runs fn for 0 … n-1 at the same time and returns once every
// call has returned, so nothing of the stage runs on after it. The first
// call to fail cancels the others' context, and its error is the one
// returned (conc's WithFirstError). Every failure is logged at debug
// level (labctl -v); the others' are dropped from the result: once
// cancelled, each fails with the cancellation on whatever it was waiting
// for and names an object that did nothing wrong; joined to the cause,
// they would bury it. One that
// failed on its own at the same moment is dropped too; the log keeps it.
//
// A call cancelled half-way leaves what an interrupted `up` leaves, and the
// next `up` takes it on as it does then: a half-joined worker is reset
// before its next join (joinWorker), a helm install left pending has that
// revision's record deleted before the next install (helmInstall).
func sideBySide(ctx context.Context, log *slog.Logger, stage string, n int, fn func(ctx context.Context, i int) error) error {
	p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError()
	for i := range n {
		p.Go(func(ctx context.Context) error {
			err := fn(ctx, i)
			if err != nil {
				log.Debug("a step run side by side failed (only the first failure is returned)", "stage", stage, "err", err)
			}
			return err
		})
	}
	return p.Wait()
}
