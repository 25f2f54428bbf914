package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/run/faultkube"
)

// When the fault is made and how long its recovery is watched.
const (
	// faultFallback: no line said a case of the tenant started this long
	// after labctl test began (the suite's log changed, or its first cases
	// are another tenant's), so the fault is made anyway. The seed lab's
	// suite ran 34 s on 2 cores; its first case starts within seconds.
	faultFallback = 30 * time.Second
	// faultPoll is how often the recovery is looked at, faultBound how
	// long: past it the report says "not recovered within".
	faultPoll  = 2 * time.Second
	faultBound = 5 * time.Minute
	// faultCommandTimeout bounds one fault command (faultkube's client has
	// its own 15 s timeout per request).
	faultCommandTimeout = time.Minute
	// faultLog is where every fault command's output goes, in the reports.
	faultLog = "fault.log"
)

// stepFault names a fault command (never a labctl one, nor a log of its own).
const stepFault step = "fault"

// faultRun is one fault during one labctl test: it waits for the trigger,
// makes the fault once, then watches the component come back.
type faultRun struct {
	rh    *runState
	pl    faultPlan
	rec   *FaultRecord
	start time.Time // labctl test began
	log   io.WriteCloser

	trigger  chan string
	testDone chan struct{}
	finished chan struct{}

	// What the injection did, for the recovery: the UIDs it deleted, the
	// etcd members it saw, when docker restart returned.
	gone      map[string]bool
	members   int
	restarted time.Time
	leaderAt  bool
}

// startFault begins watching labctl test's lines for the trigger; finish
// (after labctl test returned) waits for the recovery watch to end.
func (rh *runState) startFault(ctx context.Context, pl faultPlan) *faultRun {
	fr := &faultRun{rh: rh, pl: pl, rec: rh.r.Fault, start: rh.d.now(), gone: map[string]bool{},
		trigger: make(chan string, 1), testDone: make(chan struct{}), finished: make(chan struct{})}
	fr.rec.Bound = faultBound
	f, err := createIn(rh.reports, faultLog)
	if err != nil {
		rh.log.Warn("the fault commands' output is not kept", "file", faultLog, "err", err)
		fr.log = nopCloser{io.Discard}
	} else {
		fr.log = f
	}
	rh.setOnLine(func(s step, line string) {
		if s == stepTest {
			fr.saw(line)
		}
	})
	go fr.watch(ctx)
	return fr
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// saw is handed every line of labctl test: the first case of the fault's
// tenant to start sets the fault off.
func (fr *faultRun) saw(line string) {
	id, tenants, ok := caseStart(line)
	if !ok {
		return
	}
	for _, t := range tenants {
		if t == fr.pl.Tenant {
			select {
			case fr.trigger <- fmt.Sprintf("%s, a case of %s, started (its \"case start\" line in labctl test's log)", id, t):
			default: // set off already
			}
			return
		}
	}
}

// finish says labctl test returned and waits for the fault's watch (at
// most the recovery bound and one command's timeout more).
func (fr *faultRun) finish() {
	fr.rh.setOnLine(nil)
	close(fr.testDone)
	// Up to faultBound more: the heartbeat says the rehearsal still runs.
	fr.rh.watch("watching the recovery from fault " + string(fr.pl.Fault))
	<-fr.finished
	fr.rh.watch("")
	fr.log.Close()
}

func (fr *faultRun) watch(ctx context.Context) {
	defer close(fr.finished)
	var why string
	select {
	case why = <-fr.trigger:
	case <-fr.rh.d.after(faultFallback):
		why = fmt.Sprintf("fallback: no case of %s had started %s after labctl test began", fr.pl.Tenant, faultFallback)
	case <-fr.testDone:
		select {
		case why = <-fr.trigger: // it came with the last lines
		default:
			fr.rec.Err = fmt.Sprintf("not made: labctl test ended before a case of %s started and before the %s fallback",
				fr.pl.Tenant, faultFallback)
			return
		}
	case <-ctx.Done():
		fr.rec.Err = "not made: the rehearsal was interrupted first"
		return
	}
	fr.rec.Trigger = why
	fr.rh.log.Info("making the fault", "fault", fr.pl.Fault, "trigger", why)
	at, err := fr.inject(ctx)
	if err != nil {
		fr.rec.Err = "could not be made: " + err.Error()
		fr.rh.log.Error("the fault could not be made", "fault", fr.pl.Fault, "err", err)
		return
	}
	fr.rec.Injected, fr.rec.At = true, at.Sub(fr.start)
	fr.watchRecovery(ctx, at)
}

// inject makes the fault and returns when its disruptive command began.
func (fr *faultRun) inject(ctx context.Context) (time.Time, error) {
	pl := fr.pl
	switch pl.Fault {
	case faultWorkerRestart:
		at := fr.rh.d.now()
		if _, err := fr.exec(ctx, pl.restartWorker(), true); err != nil {
			return at, err
		}
		fr.restarted = fr.rh.d.now()
		fr.rec.Did = append(fr.rec.Did, fmt.Sprintf("restarted container %s (docker restart returned after %s)",
			pl.Node, fr.restarted.Sub(at).Round(100*time.Millisecond)))
		return at, nil
	case faultEtcdLeader:
		lines, err := fr.exec(ctx, pl.etcdMembers(), true)
		if err != nil {
			return time.Time{}, err
		}
		leader, err := soleLeader(lines)
		if err != nil {
			return time.Time{}, err
		}
		fr.members = len(lines)
		fr.rec.Did = append(fr.rec.Did, fmt.Sprintf("%s leads (of %d members)", leader.Name, len(lines)))
		at := fr.rh.d.now()
		return at, fr.deleted(ctx, pl.deleteMember(leader.Name, leader.UID))
	default:
		at := fr.rh.d.now()
		return at, fr.deleted(ctx, pl.deletePods())
	}
}

// deleted runs a delete and records what it deleted.
func (fr *faultRun) deleted(ctx context.Context, c command) error {
	lines, err := fr.exec(ctx, c, true)
	for _, l := range lines {
		if l.Pod != nil && l.Pod.Deleted {
			fr.gone[l.Pod.UID] = true
			fr.rec.Did = append(fr.rec.Did, fmt.Sprintf("deleted pod %s (uid %s)", l.Pod.Name, l.Pod.UID))
		}
	}
	if err == nil && len(fr.gone) == 0 {
		err = errors.New("the delete reported no pod deleted")
	}
	return err
}

// soleLeader is the one member whose metrics say it leads. None, or more
// than one (an old leader cut off still says so), is no state to make the
// fault in.
func soleLeader(lines []faultkube.Line) (faultkube.Pod, error) {
	var leaders []faultkube.Pod
	var said []string
	for _, l := range lines {
		if l.Pod == nil || l.Pod.Etcd == nil {
			continue
		}
		p := *l.Pod
		s := fmt.Sprintf("%s leader=%t has-leader=%t", p.Name, p.Etcd.IsLeader, p.Etcd.HasLeader)
		if p.Etcd.Err != "" {
			s = p.Name + ": " + p.Etcd.Err
		}
		said = append(said, s)
		if p.Etcd.IsLeader {
			leaders = append(leaders, p)
		}
	}
	if len(leaders) != 1 {
		return faultkube.Pod{}, fmt.Errorf("want exactly one kamaji-etcd member that leads, found %d (%s): "+
			"is kamaji-etcd healthy? Look at `kubectl -n kamaji-system get pods` in the lab", len(leaders), strings.Join(said, "; "))
	}
	return leaders[0], nil
}

// watchRecovery looks every faultPoll until the component is back or faultBound
// has passed since the fault was made.
func (fr *faultRun) watchRecovery(ctx context.Context, at time.Time) {
	for {
		done, detail := fr.back(ctx, at)
		fr.rec.Probes++
		fr.rec.Detail = detail
		elapsed := fr.rh.d.now().Sub(at)
		if done {
			fr.rec.Recovered, fr.rec.Recovery = true, elapsed
			fr.rh.log.Info("the component is back", "fault", fr.pl.Fault, "after", elapsed.Round(100*time.Millisecond), "saw", detail)
			return
		}
		if elapsed >= faultBound {
			fr.rh.log.Warn("the component is not back", "fault", fr.pl.Fault, "within", faultBound, "last look", detail)
			return
		}
		select {
		case <-ctx.Done():
			fr.rec.Detail += " (the rehearsal was interrupted)"
			return
		case <-fr.rh.d.after(faultPoll):
		}
	}
}

// back is one look at the component: whether it is back, and what was seen.
func (fr *faultRun) back(ctx context.Context, at time.Time) (bool, string) {
	pl := fr.pl
	switch pl.Fault {
	case faultWorkerRestart:
		lines, err := fr.exec(ctx, pl.node(), false)
		if err != nil {
			return false, err.Error()
		}
		for _, l := range lines {
			if n := l.Node; n != nil {
				// A renewal after docker restart returned is the new
				// kubelet's: the old one stopped with its container.
				renewed := n.LeaseRenewed.After(fr.restarted)
				return n.Ready && renewed, fmt.Sprintf("node %s Ready=%t, its kubelet last renewed its lease %s (after the restart: %t)",
					n.Name, n.Ready, n.LeaseRenewed.UTC().Format(time.RFC3339), renewed)
			}
		}
		return false, "node " + pl.Node + ": no answer"
	case faultEtcdLeader:
		lines, err := fr.exec(ctx, pl.etcdMembers(), false)
		if err != nil {
			return false, err.Error()
		}
		return fr.etcdBack(lines, at)
	default:
		lines, err := fr.exec(ctx, pl.listPods(), false)
		if err != nil {
			return false, err.Error()
		}
		var ready, other []string
		for _, l := range lines {
			if p := l.Pod; p != nil && !fr.gone[p.UID] && p.Ready {
				ready = append(ready, p.Name)
			} else if p != nil {
				other = append(other, fmt.Sprintf("%s (ready=%t, deleted by the fault=%t)", p.Name, p.Ready, fr.gone[p.UID]))
			}
		}
		detail := fmt.Sprintf("%d new pod(s) Ready of %d deleted: %s; others: %s",
			len(ready), len(fr.gone), noneIfEmpty(ready), noneIfEmpty(other))
		return len(ready) >= len(fr.gone), detail
	}
}

// etcdBack: back when as many members as before are Ready, the deleted one
// replaced (StatefulSet pods keep their names, not their UIDs), each
// reports a leader and exactly one leads. The first look that finds a new
// leader is noted: the election is over before the member is back.
func (fr *faultRun) etcdBack(lines []faultkube.Line, at time.Time) (bool, string) {
	var said []string
	ok, leaders, n := true, 0, 0
	for _, l := range lines {
		p := l.Pod
		if p == nil || p.Etcd == nil {
			continue
		}
		n++
		if p.Etcd.IsLeader && !fr.gone[p.UID] {
			leaders++
			if !fr.leaderAt {
				fr.leaderAt = true
				fr.rec.Notes = append(fr.rec.Notes, fmt.Sprintf("a new leader, %s, was seen %s after the fault",
					p.Name, fr.rh.d.now().Sub(at).Round(100*time.Millisecond)))
			}
		}
		healthy := p.Ready && !fr.gone[p.UID] && p.Etcd.HasLeader && p.Etcd.Err == ""
		ok = ok && healthy
		s := fmt.Sprintf("%s ready=%t leader=%t has-leader=%t", p.Name, p.Ready, p.Etcd.IsLeader, p.Etcd.HasLeader)
		if p.Etcd.Err != "" {
			s += " (" + p.Etcd.Err + ")"
		}
		said = append(said, s)
	}
	return ok && leaders == 1 && n >= fr.members, fmt.Sprintf("%d of %d members: %s", n, fr.members, strings.Join(said, "; "))
}

// exec runs one fault command, its output into fault.log, and returns
// faultkube's lines. made says the command is part of making the fault
// (the report lists it); a recovery look is not listed, only counted.
func (fr *faultRun) exec(ctx context.Context, c command, made bool) ([]faultkube.Line, error) {
	if made {
		fr.rec.Commands = append(fr.rec.Commands, c.String())
	}
	ctx, cancel := context.WithTimeout(ctx, faultCommandTimeout)
	defer cancel()
	fmt.Fprintf(fr.log, "$ %s  (%s after labctl test began)\n", c, fr.rh.d.now().Sub(fr.start).Round(100*time.Millisecond))
	var mu sync.Mutex
	var lines []faultkube.Line
	var errs []string
	u, err := fr.rh.d.Exec.run(ctx, c, fr.log, func(s stream, line string) {
		mu.Lock()
		defer mu.Unlock()
		if l, ok := faultkube.Decode(line); ok && s == stdout {
			lines = append(lines, l)
		} else if s == stderr {
			errs = append(errs, line)
		}
	})
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		return lines, fmt.Errorf("%s: %w", c, err)
	}
	if u.ExitCode != 0 {
		return lines, fmt.Errorf("`%s` exited %d: %s (all its output: %s)", c, u.ExitCode, lastLines(errs, 3), faultLog)
	}
	return lines, nil
}
