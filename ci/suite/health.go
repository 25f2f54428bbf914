package suite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// healthInterval is how often a running case asks Config.Health about its
// tenants. A look is cheap (the local environment reads /proc); a case
// that met a dead component ends within this, not at its timeout.
const healthInterval = 200 * time.Millisecond

// componentDown is Config.Health's answer for a case's tenants: what is
// broken, as the platform names it.
type componentDown struct{ err error }

// Error is the platform's answer on one line (several components are
// joined with "; "), so it fits a case's one-line message.
func (d *componentDown) Error() string {
	return strings.Join(strings.Split(strings.TrimSpace(d.err.Error()), "\n"), "; ")
}

func (d *componentDown) Unwrap() error { return d.err }

// health asks Config.Health about each tenant and joins what it names, or
// returns nil (also when no Health was given: a real platform).
func (r *runner) health(tenants []string) *componentDown {
	if r.cfg.Health == nil {
		return nil
	}
	var errs []error
	seen := map[string]bool{}
	for _, tn := range tenants {
		err := r.cfg.Health(tn)
		if err == nil {
			continue
		}
		// A shared component (etcd) is named by every tenant it serves.
		for _, line := range strings.Split(err.Error(), "\n") {
			if line = strings.TrimSpace(line); line != "" && !seen[line] {
				seen[line] = true
				errs = append(errs, errors.New(line))
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &componentDown{errors.Join(errs...)}
}

// CaseStoppedMsg is the message of the log record saying a running case
// was stopped because a component it needs is not running; it is logged
// after the case's context has ended.
const CaseStoppedMsg = "case stopped: a component it needs is not running"

// watchHealth asks about the tenants at once and then every healthEvery
// until the returned stop is called, and ends the case's context with a
// *componentDown cause at the first answer naming a broken component: a
// case blocked in a wait, or in a call to a server that no longer answers,
// fails at once instead of running into its timeout.
func (r *runner) watchHealth(ctx context.Context, stopCase context.CancelCauseFunc, tenants []string) (stop func()) {
	if r.cfg.Health == nil {
		return func() {}
	}
	every := r.healthEvery
	if every <= 0 {
		every = healthInterval
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			if d := r.health(tenants); d != nil {
				// Stopped, then said: whoever reads the line (a test
				// undoing its fault) knows the case can no longer pass.
				stopCase(d)
				r.log.Warn(CaseStoppedMsg, "tenants", tenants, "why", d.Error())
				return
			}
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// stoppedBy returns the *componentDown that ended ctx, or nil.
func stoppedBy(ctx context.Context) *componentDown {
	var d *componentDown
	if errors.As(context.Cause(ctx), &d) {
		return d
	}
	return nil
}

// downMessage is the one-line message of a case that failed while a
// component it needs was down: the component first, then how the case
// ended (stopped by watchHealth or failing on its own, which a look made
// just then cannot tell apart).
func downMessage(d *componentDown, err error) string {
	return fmt.Sprintf("%s (the case failed with: %s)", d.Error(), oneLine(err.Error()))
}
