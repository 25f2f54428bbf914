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
	"k8s.io/client-go/util/flowcontrol"
)

// Banner is the phrase every log line and startup message carries, so that
// nobody mistakes the double for HAMi.
const Banner = "HAMi protocol test double (not HAMi)"

// double is a HAMi protocol test double: webhook and scheduler extender.
type double struct {
	cfg    Config
	log    *slog.Logger
	faults atomic.Pointer[Faults]
	client kubernetes.Interface
	// throttle is the client's rate limiter; nil with a pre-built Client.
	throttle *throttle

	// mu guards usage and serialises Filter decisions, so two Filters never
	// grant the same capacity.
	mu    sync.Mutex
	usage map[types.UID]podUsage
	// raceArmed: Faults.KeepDeletedUntilFiltered is set and no Filter has
	// met its race yet. Guarded by mu.
	raceArmed bool

	nodeLocks sync.Map // node name → *sync.Mutex (HAMi's in-process node lock)
	reg       registry

	nodes    corelisters.NodeLister
	pods     corelisters.PodLister
	started  atomic.Bool
	ready    atomic.Bool
	recorder record.EventRecorder
	events   record.EventBroadcaster

	// Hooks that tests replace to stay deterministic.
	newTicker  func(time.Duration) (<-chan time.Time, func())
	afterFunc  func(time.Duration, func())
	now        func() time.Time
	newLimiter func(qps float32, burst int) flowcontrol.RateLimiter
}

// podUsage is one pod's allocation as counted in usage.
type podUsage struct {
	Namespace, Name string
	Node            string
	Devices         string // hami.io/vgpu-devices-allocated
	// deleted: the pod is gone and counted until a Filter of its node has
	// answered (Faults.KeepDeletedUntilFiltered).
	deleted bool
}

// newDouble returns a double; call start before serving handler.
func newDouble(cfg Config) *double {
	cfg = withDefaults(cfg)
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := &double{cfg: cfg, log: log.With("component", Banner), usage: map[types.UID]podUsage{}}
	d.reg.init()
	d.faults.Store(&Faults{})
	d.events = record.NewBroadcaster()
	d.recorder = d.events.NewRecorder(eventScheme(), corev1.EventSource{Component: cfg.SchedulerName})
	d.newTicker = func(p time.Duration) (<-chan time.Time, func()) {
		t := time.NewTicker(p)
		return t.C, t.Stop
	}
	d.afterFunc = func(delay time.Duration, f func()) { time.AfterFunc(delay, f) }
	d.now = time.Now
	d.newLimiter = flowcontrol.NewTokenBucketRateLimiter
	return d
}

func withDefaults(cfg Config) Config {
	if cfg.SchedulerName == "" {
		cfg.SchedulerName = "hami-scheduler"
	}
	if cfg.NodeLockTimeout == 0 {
		cfg.NodeLockTimeout = defaultNodeLockTimeout
	}
	if cfg.GPUPolicy == "" {
		cfg.GPUPolicy = "spread"
	}
	if cfg.NodePolicy == "" {
		cfg.NodePolicy = "binpack"
	}
	if cfg.ForceOverwriteDefaultScheduler == nil {
		yes := true
		cfg.ForceOverwriteDefaultScheduler = &yes
	}
	if cfg.DefaultGPUNum == 0 {
		cfg.DefaultGPUNum = 1
	}
	if cfg.MemoryFactor == 0 {
		cfg.MemoryFactor = 1
	}
	if cfg.KubeQPS == 0 {
		cfg.KubeQPS = defaultKubeQPS
	}
	if cfg.KubeBurst == 0 {
		cfg.KubeBurst = defaultKubeBurst
	}
	if cfg.RegisterInterval == 0 {
		cfg.RegisterInterval = DefaultRegisterInterval
	}
	if cfg.HTTPBind == "" {
		cfg.HTTPBind = defaultHTTPBind
	}
	if cfg.MetricsBindAddress == "" {
		cfg.MetricsBindAddress = defaultMetricsBindAddress
	}
	return cfg
}

// config is the configuration the double runs with, defaults filled in.
func (d *double) config() Config { return d.cfg }

// setFaults replaces the injected faults; safe to call at any time.
func (d *double) setFaults(f Faults) {
	d.faults.Store(&f)
	d.mu.Lock()
	d.raceArmed = f.KeepDeletedUntilFiltered
	if !f.KeepDeletedUntilFiltered {
		d.forgetDeletedLocked(func(podUsage) bool { return true })
	}
	d.mu.Unlock()
	d.log.Info(Banner+": faults set", "faults", fmt.Sprintf("%+v", f))
}

func (d *double) currentFaults() Faults { return *d.faults.Load() }

// start builds the double's client, starts the registration loop, the pod
// and node informers and the event sink, and returns once the caches are
// synced. Everything stops when ctx is done.
func (d *double) start(ctx context.Context) error {
	client, err := d.buildClient()
	if err != nil {
		return err
	}
	if !d.started.CompareAndSwap(false, true) {
		return fmt.Errorf("%s: Start called twice", Banner)
	}
	d.client = client
	c := d.cfg
	d.log.Info(Banner+": starting", "schedulerName", c.SchedulerName, "nodeLockTimeout", c.NodeLockTimeout.String(),
		"gpuPolicy", c.GPUPolicy, "nodePolicy", c.NodePolicy, "kubeQPS", c.KubeQPS, "kubeBurst", c.KubeBurst,
		"throttled", d.throttle != nil, "registerInterval", c.RegisterInterval.String(), "registerInstantly", c.RegisterInstantly)
	if len(c.Unmodelled) > 0 {
		d.log.Info(Banner+": accepted but not modelled", "flags", c.Unmodelled)
	}
	d.events.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	factory := informers.NewSharedInformerFactory(client, 0)
	synced, err := d.handleInformers(factory)
	if err != nil {
		return err
	}
	// HAMi starts its registration loop, and so its ticker, before its
	// informers (cmd/scheduler/main.go@v2.10.0: go RegisterFromNodeAnnotations, then Start).
	go d.registrationLoop(ctx)
	factory.Start(ctx.Done())
	// Like HAMi's Start, wait until the handlers have seen the initial
	// lists too, so the initial node adds never trigger a registration pass.
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		factory.Shutdown()
		d.events.Shutdown()
		return fmt.Errorf("%s: pod and node caches did not sync: %w", Banner, ctx.Err())
	}
	go func() {
		<-ctx.Done()
		factory.Shutdown()
		d.events.Shutdown()
		d.log.Info(Banner + ": stopped")
	}()
	d.ready.Store(true)
	if c.RegisterInstantly {
		d.reg.markSynced()
	}
	d.log.Info(Banner + ": ready")
	return nil
}

// handleInformers adds the double's handlers to the factory's pod and node
// informers and keeps their listers; it returns what reports the handlers
// synced.
func (d *double) handleInformers(factory informers.SharedInformerFactory) ([]cache.InformerSynced, error) {
	podInf := factory.Core().V1().Pods()
	podReg, err := podInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { d.onPod(o) },
		UpdateFunc: func(_, o any) { d.onPod(o) },
		DeleteFunc: d.onPodDelete,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: pod informer: %w", Banner, err)
	}
	d.pods = podInf.Lister()
	nodeInf := factory.Core().V1().Nodes()
	nodeReg, err := nodeInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { d.onNodeAdd() },
		DeleteFunc: d.onNodeDelete,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: node informer: %w", Banner, err)
	}
	d.nodes = nodeInf.Lister()
	return []cache.InformerSynced{podReg.HasSynced, nodeReg.HasSynced}, nil
}

// handler serves HAMi's routes: POST /webhook, POST /filter, POST /bind,
// GET /healthz and /readyz. /metrics is served apart (metricsHandler), as
// HAMi serves it on --metrics-bind-address.
func (d *double) handler() http.Handler {
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
