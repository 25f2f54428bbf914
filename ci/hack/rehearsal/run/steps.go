package run

import (
	"context"
	"fmt"
	"path/filepath"
)

// tailLines is how many last lines of a step the report keeps.
const tailLines = 20

// step runs one labctl command, its output into its log in the reports
// directory, its stdout lines relayed as progress, and watched by the
// heartbeat. An error means it could not be run at all.
func (rh *runState) step(ctx context.Context, c command) (stepResult, error) {
	logPath := logFile(rh.o.Reports, c.Step)
	res := stepResult{Step: c.Step, Command: c.String(), Log: logPath, ExitCode: -1}
	f, err := createIn(rh.reports, filepath.Base(logPath))
	if err != nil {
		return res, fmt.Errorf("labctl %s: its log: %w", c.Step, err)
	}
	defer f.Close()
	fmt.Fprintf(f, "$ %s\n", c)
	rh.log.Info("running labctl "+string(c.Step), "command", c.String(), "log", logPath)
	hb := rh.watch("labctl " + string(c.Step))
	var tail []string
	u, err := rh.d.Exec.run(ctx, c, f, func(s stream, line string) {
		hb.saw(rh.d.now(), line)
		rh.mu.Lock()
		tail = append(tail, line)
		if len(tail) > tailLines {
			tail = tail[1:]
		}
		onLine := rh.onLine
		rh.mu.Unlock()
		if onLine != nil {
			onLine(c.Step, line)
		}
		if s == stdout {
			rh.log.Info(line, "step", string(c.Step))
		}
	})
	rh.watch("")
	rh.mu.Lock()
	res.Tail = append([]string(nil), tail...)
	rh.mu.Unlock()
	res.Wall, res.MaxRSS, res.ExitCode = u.Wall, u.MaxRSS, u.ExitCode
	rh.r.Steps = append(rh.r.Steps, res)
	if err != nil {
		return res, fmt.Errorf("labctl %s: %w", c.Step, err)
	}
	return res, nil
}

// setOnLine sets (nil: clears) what each line of the labctl commands is
// handed to.
func (rh *runState) setOnLine(f func(step, string)) {
	rh.mu.Lock()
	rh.onLine = f
	rh.mu.Unlock()
}

// watch makes what the step the heartbeat reports on ("" for none).
func (rh *runState) watch(what string) *heartbeat {
	rh.mu.Lock()
	defer rh.mu.Unlock()
	rh.hb = nil
	if what != "" {
		rh.hb = newHeartbeat(what, rh.d.now())
	}
	return rh.hb
}

// startSampling ticks every HeartbeatCheck until Run ends: it measures
// every SampleEvery and says a quiet step is still running.
func (rh *runState) startSampling() {
	c, stop := rh.d.ticker(heartbeatCheck)
	done := make(chan struct{})
	finished := make(chan struct{})
	rh.stopTick = func() {
		stop()
		close(done)
		<-finished
		rh.inflight.Wait()
	}
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case <-c:
				rh.tick()
			}
		}
	}()
}

func (rh *runState) tick() {
	now := rh.d.now()
	rh.mu.Lock()
	due := rh.made.Daemon && !rh.sampling && now.Sub(rh.sampled) >= sampleEvery
	if due {
		rh.sampling = true
	}
	rh.mu.Unlock()
	if due {
		// Walking a data root of many GiB takes seconds: the heartbeat
		// must not wait for it.
		rh.inflight.Add(1)
		go func() {
			defer rh.inflight.Done()
			s := rh.d.Probe.sample(rh.o.Paths)
			rh.mu.Lock()
			rh.peak, rh.samples, rh.sampled, rh.sampling = rh.peak.max(s), rh.samples+1, now, false
			rh.mu.Unlock()
		}()
	}
	rh.mu.Lock()
	hb, peak := rh.hb, rh.peak
	rh.mu.Unlock()
	if hb == nil {
		return
	}
	if msg, ok := hb.due(now, peak); ok {
		rh.log.Info(msg)
	}
}
