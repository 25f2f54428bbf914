package hamidouble

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
)

// Banner is the phrase every log line and startup message carries, so that
// nobody mistakes the double for HAMi.
const Banner = "HAMi protocol test double (not HAMi)"

// Config configures a Double. Zero values take HAMi's chart defaults.
type Config struct {
	// Client talks to the tenant's API server. Give it a high QPS (≥ 100):
	// the double does not model HAMi's client-side throttling (QPS 5).
	Client kubernetes.Interface
	// SchedulerName is the profile the webhook sets; default hami-scheduler.
	SchedulerName string
	// NodeLockTimeout is HAMi's --node-lock-timeout; default 5m.
	NodeLockTimeout time.Duration
	// GPUPolicy is HAMi's --gpu-scheduler-policy; default spread.
	GPUPolicy string
	// NodePolicy is HAMi's --node-scheduler-policy; default binpack.
	NodePolicy string
	// DefaultGPUNum is the nvidia.com/gpu the webhook adds; default 1.
	DefaultGPUNum int
	// Log receives the double's log lines; nil discards them.
	Log *slog.Logger
}

// Faults break one HAMi rule each, on purpose, so a conformance case can be
// shown to fail when the rule it tests is broken. The zero value is faithful.
type Faults struct {
	// NoMutation makes the webhook allow every pod unchanged.
	NoMutation bool
	// IgnoreMemory skips the card memory check (CardInsufficientMemory).
	IgnoreMemory bool
	// IgnoreCores skips the card compute checks (CardInsufficientCore and
	// the exclusive-card and exhausted-compute checks).
	IgnoreCores bool
	// NoSharing never puts two pods on one card.
	NoSharing bool
	// IgnoreTypeFilter ignores nvidia.com/use-gputype and nouse-gputype.
	IgnoreTypeFilter bool
	// IgnorePolicy treats the binpack GPU policy as spread.
	IgnorePolicy bool
	// KeepDeletedUsage never forgets deleted pods' usage.
	KeepDeletedUsage bool
	// IgnoreCount grants as many cards as a node has when a pod asks for
	// more (no NodeInsufficientDevice).
	IgnoreCount bool
	// IgnoreSplitCount skips the per-card grant limit (CardTimeSlicingExhausted).
	IgnoreSplitCount bool
	// IgnoreRegistrationGate reads cards even when allocatable nvidia.com/gpu is 0.
	IgnoreRegistrationGate bool
	// NoNodeLock binds without taking the node lock.
	NoNodeLock bool
}

// Double is a HAMi protocol test double: webhook and scheduler extender.
type Double struct {
	cfg    Config
	log    *slog.Logger
	faults atomic.Pointer[Faults]

	// mu guards usage and serialises Filter decisions, so two Filters never
	// grant the same capacity.
	mu    sync.Mutex
	usage map[types.UID]podUsage

	nodeLocks sync.Map // node name → *sync.Mutex (HAMi's in-process node lock)

	nodes    corelisters.NodeLister
	started  atomic.Bool
	ready    atomic.Bool
	recorder record.EventRecorder
	events   record.EventBroadcaster
}

// podUsage is one pod's allocation as counted in usage.
type podUsage struct {
	Namespace, Name string
	Node            string
	Devices         string // hami.io/vgpu-devices-allocated
}

// New returns a Double; call Start before serving Handler.
func New(cfg Config) *Double {
	if cfg.SchedulerName == "" {
		cfg.SchedulerName = "hami-scheduler"
	}
	if cfg.NodeLockTimeout == 0 {
		cfg.NodeLockTimeout = 5 * time.Minute
	}
	if cfg.GPUPolicy == "" {
		cfg.GPUPolicy = "spread"
	}
	if cfg.NodePolicy == "" {
		cfg.NodePolicy = "binpack"
	}
	if cfg.DefaultGPUNum == 0 {
		cfg.DefaultGPUNum = 1
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := &Double{cfg: cfg, log: log.With("component", Banner), usage: map[types.UID]podUsage{}}
	d.faults.Store(&Faults{})
	d.events = record.NewBroadcaster()
	d.recorder = d.events.NewRecorder(eventScheme(), corev1.EventSource{Component: cfg.SchedulerName})
	return d
}

// SetFaults replaces the injected faults; safe to call at any time.
func (d *Double) SetFaults(f Faults) {
	d.faults.Store(&f)
	d.log.Info(Banner+": faults set", "faults", fmt.Sprintf("%+v", f))
}

func (d *Double) currentFaults() Faults { return *d.faults.Load() }

// Start starts the pod and node informers and the event sink, and returns
// once the caches are synced. Everything stops when ctx is done.
func (d *Double) Start(ctx context.Context) error {
	if d.cfg.Client == nil {
		return fmt.Errorf("%s: Config.Client is nil: pass the tenant's clientset", Banner)
	}
	if !d.started.CompareAndSwap(false, true) {
		return fmt.Errorf("%s: Start called twice", Banner)
	}
	d.log.Info(Banner+": starting", "schedulerName", d.cfg.SchedulerName, "nodeLockTimeout", d.cfg.NodeLockTimeout.String(),
		"gpuPolicy", d.cfg.GPUPolicy, "nodePolicy", d.cfg.NodePolicy)
	d.events.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: d.cfg.Client.CoreV1().Events("")})
	factory := informers.NewSharedInformerFactory(d.cfg.Client, 0)
	pods := factory.Core().V1().Pods().Informer()
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { d.onPod(o) },
		UpdateFunc: func(_, o any) { d.onPod(o) },
		DeleteFunc: d.onPodDelete,
	}); err != nil {
		return fmt.Errorf("%s: pod informer: %w", Banner, err)
	}
	nodeInf := factory.Core().V1().Nodes()
	d.nodes = nodeInf.Lister()
	nodeInf.Informer() // register before Start
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			factory.Shutdown()
			d.events.Shutdown()
			return fmt.Errorf("%s: %v cache did not sync: %w", Banner, typ, ctx.Err())
		}
	}
	go func() {
		<-ctx.Done()
		factory.Shutdown()
		d.events.Shutdown()
		d.log.Info(Banner + ": stopped")
	}()
	d.ready.Store(true)
	d.log.Info(Banner + ": ready")
	return nil
}

// Handler serves HAMi's routes: POST /webhook, POST /filter, POST /bind,
// GET /healthz and /readyz.
func (d *Double) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /webhook", d.serveWebhook)
	mux.HandleFunc("POST /filter", d.serveFilter)
	mux.HandleFunc("POST /bind", d.serveBind)
	ok := func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }
	mux.HandleFunc("GET /healthz", ok)
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !d.ready.Load() {
			http.Error(w, Banner+": caches not synced", http.StatusServiceUnavailable)
			return
		}
		ok(w, r)
	})
	return mux
}
