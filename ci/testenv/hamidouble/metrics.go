package hamidouble

import (
	"fmt"
	"net/http"
	"runtime"
	"sort"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// doubleVersion is the version label of the double's hami_build_info, so a
// scrape never passes for HAMi's.
const doubleVersion = "protocol-double"

// metricZone is the zone label HAMi's scheduler wraps its cluster metrics in
// (NewClusterManager("vGPU", …), cmd/scheduler/metrics.go@v2.10.0).
const metricZone = "vGPU"

// mib is HAMi's mibToBytes factor: device memory is accounted in MiB.
const mib = 1024 * 1024

// metric is one family of cmd/scheduler/metrics.go@v2.10.0: its default
// name and labels, and the legacy ones --legacy-metrics adds.
type metric struct {
	name, legacy             string
	labels, legacyLabels     []string
	value                    func(card) float64
	labelValues, legacyValue func(node string, c card) []string
}

func cardLabels(node string, c card) []string {
	return []string{node, c.UUID, fmt.Sprint(c.Index), c.Type}
}

func cardLabelsWithCores(node string, c card) []string {
	return []string{node, c.UUID, fmt.Sprint(c.Index), fmt.Sprint(c.TotalCores), c.Type}
}

var (
	cardLabelNames = []string{"node", "device_uuid", "device_index", "device_type"}
	legacyNames    = []string{"nodeid", "deviceuuid", "deviceidx", "devicetype"}
)

// cardMetrics are collectNodeMetrics' per-card families, in HAMi's order.
var cardMetrics = []metric{
	{name: "hami_gpu_memory_limit_bytes", legacy: "GPUDeviceMemoryLimit", labels: cardLabelNames, legacyLabels: legacyNames,
		value: func(c card) float64 { return float64(c.TotalMem) * mib }, labelValues: cardLabels},
	{name: "hami_gpu_core_limit_ratio", legacy: "GPUDeviceCoreLimit", labels: cardLabelNames, legacyLabels: legacyNames,
		value: func(c card) float64 { return float64(c.TotalCores) }, labelValues: cardLabels},
	{name: "hami_gpu_memory_allocated_bytes", legacy: "GPUDeviceMemoryAllocated",
		labels:       []string{"node", "device_uuid", "device_index", "device_cores", "device_type"},
		legacyLabels: []string{"nodeid", "deviceuuid", "deviceidx", "devicecores", "devicetype"},
		value:        func(c card) float64 { return float64(c.UsedMem) * mib }, labelValues: cardLabelsWithCores},
	{name: "hami_gpu_shared_count", legacy: "GPUDeviceSharedNum", labels: cardLabelNames, legacyLabels: legacyNames,
		value: func(c card) float64 { return float64(c.Used) }, labelValues: cardLabels},
	{name: "hami_gpu_core_allocated_ratio", legacy: "GPUDeviceCoreAllocated", labels: cardLabelNames, legacyLabels: legacyNames,
		value: func(c card) float64 { return float64(c.UsedCores) }, labelValues: cardLabels},
	{name: "hami_node_gpu_overview", legacy: "nodeGPUOverview",
		labels:       []string{"node", "device_uuid", "device_index", "device_cores", "device_memory_limit", "device_type"},
		legacyLabels: []string{"nodeid", "deviceuuid", "deviceidx", "devicecores", "devicememorylimit", "devicetype"},
		value:        func(c card) float64 { return float64(c.UsedMem) * mib },
		labelValues: func(node string, c card) []string {
			return []string{node, c.UUID, fmt.Sprint(c.Index), fmt.Sprint(c.TotalCores), fmt.Sprint(c.TotalMem), c.Type}
		}},
	{name: "hami_node_gpu_memory_allocated_ratio", legacy: "nodeGPUMemoryPercentage", labels: cardLabelNames,
		legacyLabels: []string{"nodeid", "deviceuuid", "deviceidx"},
		value:        func(c card) float64 { return ratio(c.UsedMem, c.TotalMem) }, labelValues: cardLabels,
		legacyValue: func(node string, c card) []string { return cardLabels(node, c)[:3] }},
}

// metricsHandler serves GET /metrics like HAMi's scheduler on
// --metrics-bind-address: hami_build_info (version "protocol-double") and,
// per registered card, the families above with zone="vGPU"; per container
// grant hami_vgpu_memory_allocated_bytes and hami_vgpu_core_allocated_ratio.
// Card families come from the usage snapshot of the last registration pass,
// as HAMi's come from overviewstatus; only registered cards appear.
func (d *double) metricsHandler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hami_build_info",
		Help: "hami build metadata exposed as labels with a constant value of 1.",
		ConstLabels: prometheus.Labels{"version": doubleVersion, "revision": "unknown", "build_date": "unknown",
			"go_version": runtime.Version(), "compiler": runtime.Compiler, "platform": runtime.GOOS + "/" + runtime.GOARCH},
	}, func() float64 { return 1 }))
	prometheus.WrapRegistererWith(prometheus.Labels{"zone": metricZone}, reg).MustRegister(collector{d})
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return mux
}

type collector struct{ d *double }

func (c collector) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(c, ch) }

func (c collector) Collect(ch chan<- prometheus.Metric) {
	legacy := c.d.cfg.LegacyMetrics
	for _, n := range c.d.metricNodes() {
		for _, card := range n.Cards {
			for _, m := range cardMetrics {
				if m.name == "hami_node_gpu_memory_allocated_ratio" && card.TotalMem <= 0 {
					continue
				}
				send(ch, m.name, m.labels, m.value(card), m.labelValues(n.Name, card))
				if legacy {
					lv := m.labelValues
					if m.legacyValue != nil {
						lv = m.legacyValue
					}
					send(ch, m.legacy, m.legacyLabels, m.value(card), lv(n.Name, card))
				}
			}
		}
	}
	c.d.collectContainers(ch, legacy)
}

// collectContainers is collectContainerMetrics: one sample per container
// grant of every pod HAMi counts.
func (d *double) collectContainers(ch chan<- prometheus.Metric, legacy bool) {
	d.mu.Lock()
	usage := make([]podUsage, 0, len(d.usage))
	for _, u := range d.usage {
		usage = append(usage, u)
	}
	d.mu.Unlock()
	names := []string{"namespace", "node", "pod", "container_index", "device_uuid"}
	legacyNames := []string{"podnamespace", "nodename", "podname", "containeridx", "deviceuuid"}
	for _, u := range usage {
		pd, err := gpus.DecodePodDevices(u.Devices)
		if err != nil {
			continue
		}
		for i, ctr := range pd {
			for _, g := range ctr {
				lv := []string{u.Namespace, u.Node, u.Name, fmt.Sprint(i), g.UUID}
				send(ch, "hami_vgpu_memory_allocated_bytes", names, float64(g.MemoryMB)*mib, lv)
				send(ch, "hami_vgpu_core_allocated_ratio", names, float64(g.Cores), lv)
				if legacy {
					send(ch, "vGPUMemoryAllocated", legacyNames, float64(g.MemoryMB)*mib, lv)
					send(ch, "vGPUCoreAllocated", legacyNames, float64(g.Cores), lv)
				}
			}
		}
	}
}

func send(ch chan<- prometheus.Metric, name string, labelNames []string, v float64, labelValues []string) {
	ch <- prometheus.MustNewConstMetric(prometheus.NewDesc(name, name, labelNames, nil), prometheus.GaugeValue, v, labelValues...)
}

// metricNodes returns the nodes whose cards /metrics lists: the last pass's
// snapshot; live cards with RegisterInstantly; every annotated card with the
// MetricsBeforeRegistration fault.
func (d *double) metricNodes() []nodeCards {
	var out []nodeCards
	if d.cfg.RegisterInstantly || d.currentFaults().MetricsBeforeRegistration {
		if d.nodes == nil {
			return nil
		}
		nodes, _ := d.nodes.List(labels.Everything())
		d.mu.Lock()
		for _, n := range nodes {
			devs, err := gpus.DecodeRegister(n.Annotations[gpus.AnnoRegister])
			if err == nil && len(devs) > 0 {
				out = append(out, d.withUsage(nodeCards{Name: n.Name, Cards: cardsOf(devs, false)}))
			}
		}
		d.mu.Unlock()
	} else {
		d.reg.mu.Lock()
		for _, n := range d.reg.overview {
			out = append(out, n)
		}
		d.reg.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
