package hamidouble

import (
	goflag "flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/pflag"
)

// schedulerFlags is HAMi v2.10.0's scheduler command line, built the way
// cmd/scheduler/main.go@v2.10.0 builds it: cobra's pflag set with the
// scheduler's own flags, then Go flag sets added with AddGoFlagSet (the
// vendors' and --debug/--device-config-file of config.GlobalFlagSet, and
// klog's flags, whose one-letter -v becomes a pflag shorthand). Defaults and
// types are HAMi's, so a value HAMi would refuse is refused here.
type schedulerFlags struct {
	fs *pflag.FlagSet

	httpBind, certFile, keyFile, schedulerName string
	nodePolicy, gpuPolicy, metricsBind         string
	deviceConfigFile                           string
	kubeQPS                                    float32
	kubeBurst                                  int
	nodeLockTimeout                            time.Duration
	forceOverwrite, legacyMetrics              bool
}

// modelledFlags are the flags whose values change what the double does.
var modelledFlags = map[string]bool{
	"http_bind": true, "cert_file": true, "key_file": true, "scheduler-name": true,
	"node-scheduler-policy": true, "gpu-scheduler-policy": true, "metrics-bind-address": true,
	"kube-qps": true, "kube-burst": true, "node-lock-timeout": true,
	"force-overwrite-default-scheduler": true, "legacy-metrics": true, "device-config-file": true,
}

func newSchedulerFlags() *schedulerFlags {
	f := &schedulerFlags{fs: pflag.NewFlagSet("scheduler", pflag.ContinueOnError)}
	fs := f.fs
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	// cmd/scheduler/main.go@v2.10.0 init().
	fs.StringVar(&f.httpBind, "http_bind", defaultHTTPBind, "http server bind address")
	fs.StringVar(&f.certFile, "cert_file", "", "tls cert file")
	fs.StringVar(&f.keyFile, "key_file", "", "tls key file")
	fs.StringVar(&f.schedulerName, "scheduler-name", "", "the name to be added to pod.spec.schedulerName if not empty")
	fs.StringVar(&f.nodePolicy, "node-scheduler-policy", "binpack", "node scheduler policy")
	fs.StringVar(&f.gpuPolicy, "gpu-scheduler-policy", "spread", "GPU scheduler policy")
	fs.StringVar(&f.metricsBind, "metrics-bind-address", defaultMetricsBindAddress,
		"The TCP address that the scheduler should bind to for serving prometheus metrics")
	fs.StringToString("node-label-selector", nil, "key=value pairs separated by commas")
	fs.Float32Var(&f.kubeQPS, "kube-qps", defaultKubeQPS, "QPS to use while talking with kube-apiserver.")
	fs.IntVar(&f.kubeBurst, "kube-burst", defaultKubeBurst, "Burst to use while talking with kube-apiserver.")
	fs.Int("kube-timeout", 0, "Timeout to use while talking with kube-apiserver.")
	fs.Bool("profiling", false, "Enable pprof profiling via HTTP server")
	fs.DurationVar(&f.nodeLockTimeout, "node-lock-timeout", defaultNodeLockTimeout, "timeout for node locks")
	fs.Duration("node-lock-retry-timeout", 28*time.Second, "timeout for retrying LockNode when contended by another PodGroup member")
	fs.BoolVar(&f.forceOverwrite, "force-overwrite-default-scheduler", true,
		"Overwrite schedulerName in Pod Spec when set to default-scheduler")
	fs.Bool("leader-elect", false, "The pod of hami-scheduler enable leader select")
	fs.String("leader-elect-resource-name", "", "The name of resource object that is used for leader election")
	fs.String("leader-elect-resource-namespace", "", "The namespace of resource object that is used for leader election")
	fs.BoolVar(&f.legacyMetrics, "legacy-metrics", false, "Emit legacy metric names alongside new ones for backward compatibility")
	fs.AddGoFlagSet(f.globalFlags())
	fs.AddGoFlagSet(klogFlags())
	return f
}

// globalFlags mirrors config.GlobalFlagSet (pkg/scheduler/config/config.go
// @v2.10.0): each vendor's ParseConfig (pkg/device/*/…@v2.10.0; NVIDIA's
// adds none), then --debug and --device-config-file.
func (f *schedulerFlags) globalFlags() *goflag.FlagSet {
	g := goflag.NewFlagSet("scheduler", goflag.ContinueOnError)
	g.Bool("enable-ascend", false, "enable ascend device")
	for name, def := range map[string]string{
		"cambricon-mlu-name": "cambricon.com/mlu", "cambricon-mlu-memory": "cambricon.com/mlu.smlu.vmemory",
		"cambricon-mlu-cores": "cambricon.com/mlu.smlu.vcore",
		"dcu-name":            "hygon.com/dcunum", "dcu-memory": "hygon.com/dcumem", "dcu-cores": "hygon.com/dcucores",
		"mthreads-name": "mthreads.com/vgpu", "mthreads-memory": "mthreads.com/sgpu-memory", "mthreads-cores": "mthreads.com/sgpu-core",
		"enflame-gcu-resource-name": "enflame.com/gcu", "enflame-drs-gcu-resource-name": "enflame.com/drs-gcu",
		"enflame-gcu-memory-resource-name": "enflame.com/gcu-memory", "enflame-gcu-core-resource-name": "enflame.com/gcu-core",
		"enflame-vgcu-resource-name": "enflame.com/drs-gcu", "enflame-vgcu-legacy-resource-name": "enflame.com/vgcu",
		"enflame-vgcu-percentage-resource-name": "enflame.com/vgcu-percentage",
		"metax-name":                            "metax-tech.com/gpu", "metax-vcount": "metax-tech.com/sgpu",
		"metax-vcore": "metax-tech.com/vcore", "metax-vmemory": "metax-tech.com/vmemory",
		"kunlun-name": "kunlunxin.com/xpu", "kunlun-vcount": "kunlunxin.com/vxpu", "kunlun-vmemory": "kunlunxin.com/vxpu-memory",
	} {
		g.String(name, def, "vendor resource name")
	}
	g.Bool("enable-iluvatar", false, "enable iluvatar device")
	g.Bool("sgpu-topology-aware", false, "sGPU topology aware enable")
	g.Bool("debug", false, "Enable debug mode")
	g.StringVar(&f.deviceConfigFile, "device-config-file", "", "Path to the device config file")
	return g
}

// klogFlags has the names and value types of klog.InitFlags (klog/v2
// v2.140.0 klog.go init, the version HAMi v2.10.0's go.mod pins), bound to
// local variables so parsing never changes this process's klog settings.
func klogFlags() *goflag.FlagSet {
	k := goflag.NewFlagSet("klog", goflag.ContinueOnError)
	k.String("log_dir", "", "If non-empty, write log files in this directory")
	k.String("log_file", "", "If non-empty, use this log file")
	k.Uint64("log_file_max_size", 1800, "Defines the maximum size a log file can grow to")
	k.Bool("logtostderr", true, "log to standard error instead of files")
	k.Bool("alsologtostderr", false, "log to standard error as well as files")
	k.Bool("legacy_stderr_threshold_behavior", true, "If true, stderrthreshold is ignored when logtostderr=true")
	var v int
	k.Var(level{&v}, "v", "number for the log level verbosity")
	k.Bool("add_dir_header", false, "If true, adds the file directory to the header of the log messages")
	k.Bool("skip_headers", false, "If true, avoid header prefixes in the log messages")
	k.Bool("one_output", false, "If true, only write logs to their native severity level")
	k.Bool("skip_log_headers", false, "If true, avoid headers when opening log files")
	k.String("stderrthreshold", "ERROR", "logs at or above this threshold go to stderr")
	k.String("alsologtostderrthreshold", "INFO", "logs at or above this threshold go to stderr when -alsologtostderr=true")
	k.String("vmodule", "", "comma-separated list of pattern=N settings for file-filtered logging")
	k.String("log_backtrace_at", "", "when logging hits line file:N, emit a stack trace")
	return k
}

// level parses like klog.Level.Set: a base-10 int32.
type level struct{ v *int }

func (l level) String() string {
	if l.v == nil {
		return "0"
	}
	return fmt.Sprint(*l.v)
}

func (l level) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return err
	}
	*l.v = int(n)
	return nil
}

// configFromArgs parses HAMi v2.10.0's scheduler command line (the
// arguments after the program name) into a Config, reading the device
// config file it names. It fails as HAMi would: on a flag HAMi does not
// define (the error names it), a value of the wrong type, a positional
// argument, a missing or unreadable device config file (HAMi exits in
// config.InitDevices), or a non-positive --kube-burst with a positive
// --kube-qps (client-go refuses to build the client). Flags HAMi accepts but
// the double does not model are listed in Config.Unmodelled. Rest, Client
// and Log are left for the caller.
func configFromArgs(args []string) (Config, error) {
	f := newSchedulerFlags()
	if err := f.fs.Parse(args); err != nil {
		return Config{}, fmt.Errorf("%s: HAMi scheduler command line: %w", Banner, err)
	}
	if rest := f.fs.Args(); len(rest) > 0 {
		return Config{}, fmt.Errorf("%s: HAMi scheduler command line: "+
			"unknown command %q for \"scheduler\" (the double takes flags only)", Banner, rest[0])
	}
	if f.kubeQPS > 0 && f.kubeBurst <= 0 {
		return Config{}, fmt.Errorf("%s: --kube-burst=%d: burst is required to be greater than 0 when --kube-qps (%g) "+
			"is greater than 0", Banner, f.kubeBurst, f.kubeQPS)
	}
	if f.deviceConfigFile == "" {
		return Config{}, fmt.Errorf("%s: --device-config-file is required: "+
			"HAMi v2.10.0 exits without a device config (config.InitDevices); pass the chart's device-config.yaml", Banner)
	}
	dev, err := loadDeviceConfig(f.deviceConfigFile)
	if err != nil {
		return Config{}, err
	}
	force := f.forceOverwrite
	cfg := Config{
		KubeQPS: f.kubeQPS, KubeBurst: f.kubeBurst,
		SchedulerName: f.schedulerName, NodeLockTimeout: f.nodeLockTimeout,
		GPUPolicy: f.gpuPolicy, NodePolicy: f.nodePolicy, ForceOverwriteDefaultScheduler: &force,
		DefaultGPUNum: dev.DefaultGPUNum, DefaultMemory: dev.DefaultMemory, DefaultCores: dev.DefaultCores,
		MemoryFactor: dev.MemoryFactor, DeviceSplitCount: dev.DeviceSplitCount,
		LegacyMetrics: f.legacyMetrics,
		HTTPBind:      f.httpBind, CertFile: f.certFile, KeyFile: f.keyFile, MetricsBindAddress: f.metricsBind,
	}
	f.fs.Visit(func(fl *pflag.Flag) {
		if !modelledFlags[fl.Name] {
			cfg.Unmodelled = append(cfg.Unmodelled, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	return cfg, nil
}
