package testenv

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/testenv/hamidouble"
)

// Start brings up the lab l: etcd, then every tenant in parallel. It returns
// when every tenant is ready for the suite, or an error naming the component
// that failed with the tail of its log, or ErrInterrupted when ctx ends; on
// error everything started is stopped again and a temporary work dir
// removed (unless KeepWorkDir).
func Start(ctx context.Context, l *lab.Lab, opts Options) (_ *Env, err error) {
	if l == nil {
		return nil, errors.New("testenv: lab is nil; pass lab.Default() or a loaded lab file")
	}
	begin := time.Now()
	e := newEnv(l, opts)
	parent := ctx
	defer func() {
		if err != nil {
			err = e.failedStart(parent, err)
		}
	}()

	if err := e.resolveBinaries(ctx, opts); err != nil {
		return e, err
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout(opts))
	defer cancel()
	if err := e.makeWorkDir(opts); err != nil {
		return e, err
	}
	if err := e.checkHAMiCommandLine(ctx); err != nil {
		return e, err
	}

	// etcd starts next to the tenants: only their API servers wait for it
	// (the etcd step), certificates and konnectivity do not.
	tctx, cancelTenants := context.WithCancel(ctx)
	defer cancelTenants()
	e.startEtcdBeside(ctx, cancelTenants)
	if err := e.upTenants(tctx); err != nil {
		return e, err
	}
	e.bootTime = time.Since(begin)
	e.watch()
	e.log.Info("local test environment ready", "tenants", len(e.order), "took", e.bootTime.Round(time.Millisecond).String(),
		"workDir", e.workDir)
	return e, nil
}

// newEnv is the environment Start fills in, with the defaults of Options
// applied; its context lives until Stop.
func newEnv(l *lab.Lab, opts Options) *Env {
	e := &Env{lab: l, log: opts.Log, grace: opts.StopGrace, ports: newPortAllocator(opts.keepPort), tenants: map[string]*tenant{},
		doubleFaults: opts.DoubleFaults, extraHAMiArgs: opts.extraHAMiArgs, registrationTimeout: opts.RegistrationTimeout}
	if e.registrationTimeout <= 0 {
		e.registrationTimeout = 3 * hamidouble.DefaultRegisterInterval
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if e.grace <= 0 {
		e.grace = 5 * time.Second
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	return e
}

// failedStart is the error Start returns for err once it has stopped what
// had started; parent is the caller's context.
func (e *Env) failedStart(parent context.Context, err error) error {
	switch {
	case errors.Is(parent.Err(), context.Canceled):
		// The caller gave up (Ctrl-C): what was still starting is no
		// failure, and its logs are not news. (A deadline of the
		// caller's that passed is a failure and keeps the details.)
		err = fmt.Errorf("%w (%w)", ErrInterrupted, context.Cause(parent))
	case e.removeDir:
		// The error carries the tails of the logs; the rest of a
		// temporary dir (etcd data, tens of MB) must not pile up.
		err = fmt.Errorf("%w\n(work dir %s removed; Options.KeepWorkDir or `labctl testenv up --keep-work-dir` keeps it)",
			err, e.workDir)
	}
	if stopErr := e.Stop(); stopErr != nil {
		err = errors.Join(err, stopErr)
	}
	return err
}

// resolveBinaries finds the Kubernetes binaries (building them unless
// Options.BinDir has them) and the HAMi scheduler every tenant runs.
func (e *Env) resolveBinaries(ctx context.Context, opts Options) (err error) {
	if e.bins = opts.BinDir; e.bins == "" {
		if e.bins, err = EnsureBinaries(ctx, e.log); err != nil {
			return err
		}
	}
	if e.hami, err = resolveHAMi(ctx, opts, e.log); err != nil {
		return err
	}
	if !e.hami.double && opts.DoubleFaults != (hamidouble.Faults{}) {
		return fmt.Errorf("testenv: Options.DoubleFaults needs the protocol double, but the HAMi scheduler is %s", e.hami.name)
	}
	e.log.Info("HAMi scheduler of every tenant: "+e.hami.name, "binary", e.hami.bin)
	return nil
}

// startTimeout is Options.StartTimeout with its default.
func startTimeout(opts Options) time.Duration {
	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = 3 * time.Minute
	}
	return timeout
}

// makeWorkDir makes Options.WorkDir, or a temporary work dir that Stop
// removes unless Options.KeepWorkDir.
func (e *Env) makeWorkDir(opts Options) (err error) {
	if e.workDir = opts.WorkDir; e.workDir == "" {
		if e.workDir, err = os.MkdirTemp(opts.tempRoot, "gpulab-"); err != nil {
			return err
		}
		e.removeDir = !opts.KeepWorkDir
	} else if err := os.MkdirAll(e.workDir, 0o755); err != nil {
		return err
	}
	return nil
}

// startEtcdBeside starts the shared etcd in the background, closing
// e.etcdDone when it is healthy or failed; a failure cancels the tenants
// (cancelTenants), whose errors then only follow from it.
func (e *Env) startEtcdBeside(ctx context.Context, cancelTenants context.CancelFunc) {
	e.etcdDone = make(chan struct{})
	go func() {
		defer close(e.etcdDone)
		if e.etcdErr = e.startEtcd(ctx); e.etcdErr != nil {
			cancelTenants()
		}
	}()
}

// upTenants brings every tenant of the lab up in parallel and waits for
// them and for etcd; etcd's error comes before the tenants'.
func (e *Env) upTenants(ctx context.Context) error {
	for _, ts := range e.lab.Tenants {
		e.tenants[ts.Name] = &tenant{env: e, spec: ts, dir: filepath.Join(e.workDir, ts.Name)}
		e.order = append(e.order, ts.Name)
	}
	errs := make([]error, len(e.order))
	var wg sync.WaitGroup
	for i, name := range e.order {
		wg.Go(func() { errs[i] = e.tenants[name].up(ctx) })
	}
	wg.Wait()
	<-e.etcdDone
	if e.etcdErr != nil {
		return e.etcdErr // the tenants' errors only follow from it
	}
	return errors.Join(errs...)
}
