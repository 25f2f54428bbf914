package testenv

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sort"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/state"
	"github.com/gpu-lab/gpu-lab/ci/testenv/hamidouble"
)

// Options tune Start; the zero value is what tests want.
type Options struct {
	// BinDir holds prebuilt binaries; empty means EnsureBinaries.
	BinDir string
	// WorkDir receives certificates, configs, etcd data and one log per
	// process; empty means a new temporary directory, removed by Stop.
	WorkDir string
	// KeepWorkDir keeps a temporary WorkDir after Stop (for debugging).
	KeepWorkDir bool
	// Log receives progress (build, tenant steps); nil discards.
	Log *slog.Logger
	// StopGrace is how long Stop waits after SIGTERM before SIGKILL; default 5s.
	StopGrace time.Duration
	// StartTimeout bounds the start after the binaries exist; default 3m.
	StartTimeout time.Duration
	// HAMiBinary runs this HAMi scheduler binary (HAMi's
	// /k8s-vgpu/bin/scheduler) as each tenant's HAMi instead of the protocol
	// double; empty means $GPU_LAB_HAMI_BINARY, then the double.
	HAMiBinary string
	// HAMiImage takes HAMi's scheduler binary out of this image through the
	// Docker daemon (extractHAMiScheduler) and runs it like HAMiBinary.
	HAMiImage string
	// DoubleBinary is a labctl binary whose `labctl internal hami-double` runs the
	// protocol double; empty builds one from this checkout
	// (EnsureDoubleBinary).
	DoubleBinary string
	// DoubleFaults are set on each tenant's double before its workers
	// exist; only with the double.
	DoubleFaults hamidouble.Faults
	// RegistrationTimeout bounds the wait for HAMi to list every card in
	// its /metrics once the workers are Ready; default three of HAMi's 15 s
	// registration ticks (it registers at node add, else at the next tick).
	RegistrationTimeout time.Duration

	// keepPort, when set, sees the probe listener of the first port
	// proposed for each component port and may keep it open, taking the
	// port before the component binds it (tests, to prove a lost bind is
	// survived). Ports proposed after a lost bind are not shown to it.
	keepPort func(net.Listener) bool
	// extraHAMiArgs are appended to HAMi's rendered command line (tests: a
	// flag the lab might render that HAMi's double does not know).
	extraHAMiArgs []string
	// tempRoot is where a temporary WorkDir is made, and cacheRoot the
	// binary cache HAMiImage is extracted into; empty means $TMPDIR and
	// the cache (tests give their own, so they need not change the process
	// environment and can run in parallel).
	tempRoot, cacheRoot string
	// getenv reads $GPU_LAB_HAMI_BINARY when HAMiBinary is empty; nil is
	// os.Getenv (tests give their own, for the same reason).
	getenv func(string) string
}

// ErrInterrupted is returned by Start when its context was cancelled (not
// when it timed out); what had started is stopped and a temporary work dir
// removed.
var ErrInterrupted = errors.New("testenv: start interrupted")

// Env is a running local environment. Every method is safe to call after
// Stop, which is idempotent.
type Env struct {
	lab       *lab.Lab
	log       *slog.Logger
	bins      string
	workDir   string
	removeDir bool
	grace     time.Duration
	ports     *portAllocator

	etcdURL string
	// etcdTLS is how the shared etcd is reached (etcdtls.go); set before
	// etcdDone is closed.
	etcdTLS *etcdTLS
	// etcdDone is closed when etcd is healthy or failed to start (etcdErr).
	etcdDone chan struct{}
	etcdErr  error
	tenants  map[string]*tenant
	order    []string

	ctx    context.Context // lives until Stop: in-process goroutines
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	procs    []*process
	rebinds  map[string]int // component → restarts after a lost bind
	stopOnce sync.Once
	stopErr  error
	bootTime time.Duration

	hami          hamiBackend
	doubleFaults  hamidouble.Faults
	extraHAMiArgs []string
	// registrationTimeout: Options.RegistrationTimeout with its default.
	registrationTimeout time.Duration
}

// start runs a component and records it for Stop.
func (e *Env) start(name, bin string, args []string, logPath string, env ...string) (*process, error) {
	if err := e.ctx.Err(); err != nil {
		return nil, fmt.Errorf("start %s: environment is stopping", name)
	}
	p, err := startProcess(name, bin, args, logPath, env...)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.procs = append(e.procs, p)
	e.mu.Unlock()
	return p, nil
}

// Stop ends every process it started (SIGTERM, SIGKILL after the grace
// period; konnectivity's agent at once), stops the in-process parts and
// removes a temporary work dir. Calling it again returns the first result.
func (e *Env) Stop() error {
	e.stopOnce.Do(func() {
		e.cancel()
		for _, t := range e.tenants {
			for _, s := range t.closers {
				_ = s.Close()
			}
		}
		e.mu.Lock()
		procs := append([]*process(nil), e.procs...)
		e.mu.Unlock()
		// Controllers first, so they do not log the API server's exit as
		// errors; etcd last, after every API server is gone.
		var etcd []*process
		var rest []*process
		for _, p := range procs {
			if p.name == "etcd" {
				etcd = append(etcd, p)
			} else {
				rest = append(rest, p)
			}
		}
		errs := e.stopAll(rest)
		errs = append(errs, e.stopAll(etcd)...)
		e.wg.Wait()
		if len(errs) == 0 && e.removeDir {
			if err := os.RemoveAll(e.workDir); err != nil {
				errs = append(errs, err)
			}
		}
		e.stopErr = errors.Join(errs...)
	})
	return e.stopErr
}

func (e *Env) stopAll(procs []*process) []error {
	errs := make([]error, len(procs))
	var wg sync.WaitGroup
	for i, p := range procs {
		wg.Go(func() { errs[i] = p.stop(e.grace) })
	}
	wg.Wait()
	var out []error
	for _, err := range errs {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// Tenants lists the tenant names in lab order.
func (e *Env) Tenants() []string { return append([]string(nil), e.order...) }

// Lab is the lab the environment runs.
func (e *Env) Lab() *lab.Lab { return e.lab }

// WorkDir holds each process's log (<tenant>/<component>.log, etcd.log).
func (e *Env) WorkDir() string { return e.workDir }

// BootTime is how long Start took.
func (e *Env) BootTime() time.Duration { return e.bootTime }

func (e *Env) tenant(name string) *tenant {
	t, ok := e.tenants[name]
	if !ok {
		panic(fmt.Sprintf("testenv: no tenant %q (tenants: %v)", name, e.order))
	}
	return t
}

// kubeconfig is the tenant's admin kubeconfig (client certificate of the
// tenant's own CA, group system:masters).
func (e *Env) kubeconfig(tenant string) []byte {
	return append([]byte(nil), e.tenant(tenant).kubeconfig...)
}

// RESTConfig is the tenant's admin client configuration.
func (e *Env) RESTConfig(tenant string) *rest.Config { return rest.CopyConfig(e.tenant(tenant).rest) }

// Double controls the tenant's HAMi protocol test double, a process of its
// own, through its test routes: faults and counters. When the environment
// runs a real HAMi scheduler every call returns an error saying so.
func (e *Env) Double(tenant string) *hamidouble.Remote { return e.tenant(tenant).double }

// HAMi names the HAMi scheduler the environment runs: DoubleName, or the
// real binary with its image and digest or its path.
func (e *Env) HAMi() string { return e.hami.name }

// Backend describes the environment for reports: Backend with the HAMi
// scheduler that actually runs.
func (e *Env) Backend() string { return backendLine(e.hami) }

// WriteState writes the state dir the way `labctl up` does, so `labctl test
// --state-dir` runs the suite against this environment unchanged.
func (e *Env) WriteState(d state.Dir) error {
	if err := d.WriteLab(e.lab); err != nil {
		return fmt.Errorf("state dir %s: %w", d, err)
	}
	for _, name := range e.order {
		if err := d.WriteKubeconfig(name, e.tenant(name).kubeconfig); err != nil {
			return fmt.Errorf("state dir %s: kubeconfig of %s: %w", d, name, err)
		}
	}
	if err := d.WriteBackend(e.Backend()); err != nil {
		return fmt.Errorf("state dir %s: %w", d, err)
	}
	if err := d.WriteServerVersion(KubernetesVersion); err != nil {
		return fmt.Errorf("state dir %s: %w", d, err)
	}
	return nil
}

// Process is one running component.
type Process struct {
	// Name is "etcd" or "<tenant>/<component>".
	Name string
	PID  int
	// Log is the file receiving the process's output.
	Log string
}

// Processes lists every process the environment started, by name.
func (e *Env) Processes() []Process {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Process, 0, len(e.procs))
	for _, p := range e.procs {
		out = append(out, Process{Name: p.name, PID: p.pid(), Log: p.logPath})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Err reports the first process that exited on its own since Start, with
// the tail of its log, or nil.
func (e *Env) Err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range e.procs {
		if err := p.exitError(); err != nil {
			return err
		}
	}
	return nil
}
