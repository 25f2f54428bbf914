package hamidouble

import (
	"log/slog"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// HAMi v2.10.0's defaults for the behaviours the double models. Each is cited
// where HAMi defines it.
const (
	// defaultKubeQPS and defaultKubeBurst: --kube-qps / --kube-burst default
	// to client.DefaultQPS / DefaultBurst (cmd/scheduler/main.go@v2.10.0),
	// which are client-go's rest.DefaultQPS 5 and rest.DefaultBurst 10
	// (pkg/util/client/options.go@v2.10.0).
	defaultKubeQPS   float32 = 5
	defaultKubeBurst int     = 10
	// DefaultRegisterInterval is RegisterFromNodeAnnotations' fixed
	// time.NewTicker(time.Second * 15) (pkg/scheduler/scheduler.go@v2.10.0).
	DefaultRegisterInterval = 15 * time.Second
	// defaultNodeLockTimeout is --node-lock-timeout's default
	// (cmd/scheduler/main.go@v2.10.0).
	defaultNodeLockTimeout = 5 * time.Minute
	// defaultMetricsBindAddress is --metrics-bind-address's default.
	defaultMetricsBindAddress = ":9395"
	// defaultHTTPBind is --http_bind's default.
	defaultHTTPBind = "127.0.0.1:8080"
)

// Config configures a double. Zero values take HAMi's defaults (the flag
// defaults of cmd/scheduler/main.go@v2.10.0 and the chart's device config),
// except SchedulerName, which defaults to the chart's hami-scheduler.
// configFromArgs fills it from HAMi's command line.
type Config struct {
	// Rest reaches the tenant's API server. The double builds its own
	// clientset from a copy with QPS/Burst set to KubeQPS/KubeBurst, so its
	// API calls (events included) are throttled by client-go's token bucket
	// exactly as HAMi's client is (pkg/util/client/client.go@v2.10.0).
	Rest *rest.Config `json:"-"`
	// Client is a pre-built clientset, for unit tests on a fake clientset.
	// The double does not throttle calls made through it. Set Rest or
	// Client, not both.
	Client kubernetes.Interface `json:"-"`
	// AdminToken is what a request to the admin routes (adminHandler) must
	// carry as "Authorization: Bearer <token>"; empty turns those routes
	// off. Not a HAMi flag: the program reads it from the file named by
	// $GPU_LAB_DOUBLE_ADMIN_TOKEN_FILE (AdminTokenFileEnv).
	AdminToken string `json:"-"`
	// KubeQPS and KubeBurst are --kube-qps / --kube-burst (default 5 / 10).
	// A negative KubeQPS disables throttling, as it does in client-go.
	KubeQPS   float32
	KubeBurst int

	// SchedulerName is --scheduler-name; default hami-scheduler.
	SchedulerName string
	// NodeLockTimeout is --node-lock-timeout; default 5m.
	NodeLockTimeout time.Duration
	// GPUPolicy is --gpu-scheduler-policy; default spread.
	GPUPolicy string
	// NodePolicy is --node-scheduler-policy; default binpack.
	NodePolicy string
	// ForceOverwriteDefaultScheduler is --force-overwrite-default-scheduler;
	// nil means HAMi's default, true.
	ForceOverwriteDefaultScheduler *bool

	// DefaultGPUNum, DefaultMemory, DefaultCores and MemoryFactor are the
	// device config's nvidia.defaultGPUNum (default 1), defaultMemory (MB;
	// 0 = the whole card), defaultCores (0) and memoryFactor (default 1).
	DefaultGPUNum int
	DefaultMemory int
	DefaultCores  int
	MemoryFactor  int
	// DeviceSplitCount is the device config's nvidia.deviceSplitCount. HAMi's
	// scheduler does not use it (the split count comes from each card's
	// registered "count"); it is kept so callers can check the two agree.
	DeviceSplitCount int

	// RegisterInterval is the registration ticker's period; default 15 s.
	RegisterInterval time.Duration
	// RegisterInstantly makes Filter read cards straight from the node
	// informer, so annotation changes count at once and no registration
	// wait exists (not HAMi; for tests that need it).
	RegisterInstantly bool
	// LegacyMetrics is --legacy-metrics: /metrics also emits the pre-2.9
	// names (GPUDeviceMemoryLimit{nodeid,deviceuuid,…} and the rest).
	LegacyMetrics bool

	// HTTPBind, CertFile and KeyFile are --http_bind, --cert_file and
	// --key_file; MetricsBindAddress is --metrics-bind-address. Only
	// listenAndServe uses them.
	HTTPBind           string
	CertFile, KeyFile  string
	MetricsBindAddress string

	// Unmodelled lists the flags given on the command line that the double
	// accepts but does not model, as "--name=value"; Start logs them once.
	Unmodelled []string

	// Log receives the double's log lines; nil discards them.
	Log *slog.Logger `json:"-"`
}

// Faults break one HAMi rule each, on purpose, so a conformance case or a
// readiness gate can be shown to fail when the rule it relies on is broken.
// The zero value is faithful.
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
	// InvertNodePolicy chooses nodes the wrong way round: binpack takes the
	// emptiest node and spread the busiest.
	InvertNodePolicy bool
	// IgnoreNodePolicyAnnotation ignores hami.io/node-scheduler-policy and
	// uses --node-scheduler-policy for every pod.
	IgnoreNodePolicyAnnotation bool
	// KeepDeletedUsage never forgets deleted pods' usage.
	KeepDeletedUsage bool
	// IgnoreCount grants as many cards as a node has when a pod asks for
	// more (no NodeInsufficientDevice).
	IgnoreCount bool
	// IgnoreSplitCount skips the per-card grant limit (CardTimeSlicingExhausted).
	IgnoreSplitCount bool
	// IgnoreRegistrationGate registers and keeps cards whatever the node's
	// allocatable nvidia.com/gpu says.
	IgnoreRegistrationGate bool
	// NoNodeLock binds without taking the node lock.
	NoNodeLock bool

	// NeverRegister skips every registration pass: Filter answers
	// "node unregistered" and /metrics lists no card.
	NeverRegister bool
	// MetricsBeforeRegistration lists every annotated card in /metrics,
	// registered or not (a readiness gate reading it then passes too early).
	MetricsBeforeRegistration bool
	// NoHandshake writes no hami.io/node-handshake* annotations.
	NoHandshake bool
	// NoThrottle lets API calls skip the client-side rate limiter.
	NoThrottle bool
	// ForgetDeletedAfter is the delete race of HAMI-FACTS.md §3e: a
	// deleted pod's usage is forgotten only this long after the pod
	// informer saw the delete, so Filters triggered by the delete still
	// count it. 0 forgets at once.
	ForgetDeletedAfter time.Duration
	// KeepDeletedUntilFiltered makes that race certain once, whatever the
	// machine's speed: pods deleted after the faults are set are counted
	// until a Filter of their node has answered; that Filter meets the
	// race, forgets them and ends the fault, so pods deleted later are
	// forgotten at once (setting the faults again arms it again; setting
	// them without it forgets the pods still counted). Once, because the
	// suite deletes each fresh pod it gave up on: kept too, each would meet
	// the next fresh pod's Filter, and so on. ForgetDeletedAfter is met only
	// by a Filter that comes within the delay, which a loaded machine may
	// not bring; a test that must meet the race uses this (it is not how
	// HAMi times it: see HAMI-FACTS.md §3e).
	KeepDeletedUntilFiltered bool
}
