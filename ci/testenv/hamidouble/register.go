package hamidouble

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// handshakeKeys are the node-handshake annotations HAMi's registration pass
// writes with the chart's defaults: NVIDIA's (pkg/device/nvidia/device.go),
// Hygon DCU's (pkg/device/hygon/device.go), Kunlun vXPU's
// (pkg/device/kunlun/vdevice.go), Vastai's (pkg/device/vastai/device.go) and
// Biren's (pkg/device/biren/device.go), all @v2.10.0. Ascend's and
// Iluvatar's exist only with --enable-ascend / --enable-iluvatar.
var handshakeKeys = []string{
	gpus.AnnoHandshake, "hami.io/node-handshake-dcu", "hami.io/node-handshake-xpu",
	"hami.io/node-handshake-va", "hami.io/node-handshake-biren",
}

// handshakeExpiry is how long a "Requesting_" handshake keeps a node with no
// allocatable devices healthy (device.CheckHealth, pkg/device/devices.go@v2.10.0).
const handshakeExpiry = 60 * time.Second

// handshakePrefix starts the value the scheduler writes; the time that
// follows is local time in time.DateTime layout (pkg/device/devices.go@v2.10.0).
const handshakePrefix = "Requesting_"

// registry is HAMi's registered-node cache (pkg/scheduler/nodes.go
// nodeManager) with the NVIDIA device's memory of what it registered
// (ReportedGPUNum, ReportedRegisterAnnos) and the usage snapshot the last
// pass took for /metrics (Scheduler.overviewstatus).
type registry struct {
	mu           sync.Mutex
	cards        map[string][]gpus.DeviceInfo // node → registered devices
	reported     map[string]int64             // node → allocatable nvidia.com/gpu last seen
	reportedAnno map[string]string            // node → register annotation last seen
	overview     map[string]nodeCards         // node → usage at the last pass
	notify       chan struct{}
	synced       chan struct{}
	syncOnce     sync.Once
	passes       atomic.Int64
}

func (r *registry) init() {
	r.cards, r.reported, r.reportedAnno = map[string][]gpus.DeviceInfo{}, map[string]int64{}, map[string]string{}
	r.overview = map[string]nodeCards{}
	r.notify = make(chan struct{}, 1)
	r.synced = make(chan struct{})
}

// markSynced opens Filter: HAMi's Filter route waits until the first
// registration pass has finished (routes.PredicateRoute → WaitForCacheSync
// on Scheduler.synced, pkg/scheduler/routes/route.go@v2.10.0).
func (r *registry) markSynced() { r.syncOnce.Do(func() { close(r.synced) }) }

// registered returns a node's registered devices.
func (r *registry) registered(node string) ([]gpus.DeviceInfo, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	devs, ok := r.cards[node]
	return devs, ok
}

// onNodeAdd wakes the registration loop (HAMi's node informer AddFunc →
// doNodeNotify). Adds delivered while the caches sync are dropped: HAMi's
// loop skips them because the scheduler has not started yet, so nodes that
// exist at start register at the first tick.
func (d *double) onNodeAdd() {
	if !d.ready.Load() {
		return
	}
	select {
	case d.reg.notify <- struct{}{}:
	default:
	}
}

func (d *double) onNodeDelete(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	n, ok := obj.(*corev1.Node)
	if !ok {
		return
	}
	d.reg.mu.Lock()
	delete(d.reg.cards, n.Name)
	delete(d.reg.reported, n.Name)
	delete(d.reg.reportedAnno, n.Name)
	delete(d.reg.overview, n.Name)
	d.reg.mu.Unlock()
}

// registrationLoop is RegisterFromNodeAnnotations: a pass on every node add
// and on every tick of a fixed ticker.
func (d *double) registrationLoop(ctx context.Context) {
	tick, stop := d.newTicker(d.cfg.RegisterInterval)
	defer stop()
	for {
		select {
		case <-d.reg.notify:
		case <-tick:
		case <-ctx.Done():
			return
		}
		if !d.ready.Load() {
			continue
		}
		d.registerPass(ctx)
	}
}

// registerPass is Scheduler.register for the NVIDIA device: for every node,
// write missing handshakes, decide health and whether to (re)register from
// allocatable nvidia.com/gpu and the register annotation, then take the
// usage snapshot /metrics serves.
func (d *double) registerPass(ctx context.Context) {
	f := d.currentFaults()
	nodes, err := d.nodes.List(labels.Everything())
	if err != nil {
		d.log.Warn(Banner+": registration: list nodes", "err", err)
		return
	}
	for _, n := range nodes {
		d.registerNode(ctx, n, f)
	}
	d.snapshot()
	d.reg.passes.Add(1)
	d.reg.markSynced()
}

func (d *double) registerNode(ctx context.Context, n *corev1.Node, f Faults) {
	now := d.now()
	q := n.Status.Allocatable[gpus.ResourceGPU]
	current := q.Value()
	var healthy, changed bool
	for _, key := range handshakeKeys {
		alloc := int64(0)
		if key == gpus.AnnoHandshake {
			alloc = current
		}
		h, c, write := handshakeHealth(n.Annotations[key], now, alloc)
		if write && !f.NoHandshake {
			d.writeHandshake(ctx, n.Name, key, now)
		}
		if key == gpus.AnnoHandshake {
			healthy, changed = h, c
		}
	}
	anno := n.Annotations[gpus.AnnoRegister]
	devs, derr := gpus.DecodeRegister(anno)
	if derr == nil && len(devs) == 0 {
		derr = errNoGPU
	}
	d.reg.mu.Lock()
	st := registerState{Reported: d.reg.reported[n.Name], ReportedAnno: d.reg.reportedAnno[n.Name]}
	healthy, update, st := nvidiaHealth(current, anno, st, healthy, changed)
	if f.IgnoreRegistrationGate {
		_, known := d.reg.cards[n.Name]
		healthy, update = true, !known || st.ReportedAnno != anno
		st.ReportedAnno = anno
	}
	d.reg.reported[n.Name], d.reg.reportedAnno[n.Name] = st.Reported, st.ReportedAnno
	_, known := d.reg.cards[n.Name]
	switch {
	case !healthy && known:
		delete(d.reg.cards, n.Name)
		delete(d.reg.reported, n.Name) // NodeCleanUp → NodeDeleted
		delete(d.reg.reportedAnno, n.Name)
	case !healthy, derr != nil, !update, f.NeverRegister:
	default:
		d.reg.cards[n.Name] = devs
	}
	d.reg.mu.Unlock()
	switch {
	case !healthy && known:
		d.log.Info(Banner+": device is unhealthy, cleaning up node", "node", n.Name, "allocatable", current)
		d.removeHandshake(ctx, n.Name)
	case healthy && derr == nil && update && !f.NeverRegister:
		d.log.Debug(Banner+": node devices registered", "node", n.Name, "cards", len(devs))
	}
}

// snapshot takes the usage of every registered node, as register() stores
// getNodesUsage's result in overviewstatus for the metrics collector.
func (d *double) snapshot() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.reg.mu.Lock()
	defer d.reg.mu.Unlock()
	d.reg.overview = map[string]nodeCards{}
	for name, devs := range d.reg.cards {
		d.reg.overview[name] = d.withUsage(nodeCards{Name: name, Cards: cardsOf(devs, false)})
	}
}

// handshakeHealth is device.CheckHealth (pkg/device/devices.go@v2.10.0) for
// one handshake value: no "Requesting" value yet → healthy, changed, and the
// caller writes one; a value younger than 60 s, unparsable, or with
// allocatable > 0 → healthy, unchanged; otherwise unhealthy.
func handshakeHealth(value string, now time.Time, allocatable int64) (healthy, changed, write bool) {
	if !strings.Contains(value, "Requesting") {
		return true, true, true
	}
	_, ts, found := strings.Cut(value, "_")
	if !found {
		return true, false, false
	}
	t, err := time.ParseInLocation(time.DateTime, ts, time.Local)
	if err != nil || now.Before(t.Add(handshakeExpiry)) || allocatable > 0 {
		return true, false, false
	}
	return false, false, false
}

// registerState is what HAMi's NVIDIA device remembers of a node between
// passes (ReportedGPUNum, ReportedRegisterAnnos).
type registerState struct {
	Reported     int64
	ReportedAnno string
}

// nvidiaHealth is NvidiaGPUDevices.CheckHealth (pkg/device/nvidia/device.go
// @v2.10.0): with allocatable 0 a never-reported node follows its handshake
// and a reported one turns unhealthy; a changed allocatable count
// re-registers; a changed register annotation re-registers; otherwise the
// handshake decides.
func nvidiaHealth(current int64, anno string, st registerState,
	handshakeHealthy, handshakeChanged bool) (healthy, update bool, next registerState) {
	switch {
	case current == 0 && st.Reported == 0:
		return handshakeHealthy, handshakeChanged, st
	case current == 0:
		return false, handshakeChanged, registerState{Reported: current, ReportedAnno: anno}
	case st.Reported != current:
		return true, true, registerState{Reported: current, ReportedAnno: anno}
	case st.ReportedAnno != anno:
		return handshakeHealthy, true, registerState{Reported: st.Reported, ReportedAnno: anno}
	}
	return handshakeHealthy, handshakeChanged, st
}

// writeHandshake is util.GetNode + util.PatchNodeAnnotations (two API calls).
func (d *double) writeHandshake(ctx context.Context, node, key string, now time.Time) {
	if _, err := d.client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{}); err != nil {
		d.log.Warn(Banner+": handshake: get node", "node", node, "err", err)
		return
	}
	d.patchNodeAnnotation(ctx, node, key, handshakePrefix+now.Format(time.DateTime))
}

// removeHandshake is NodeCleanUp's util.MarkAnnotationsToDelete: get the
// node, then patch the NVIDIA handshake away.
func (d *double) removeHandshake(ctx context.Context, node string) {
	if _, err := d.client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{}); err != nil {
		d.log.Warn(Banner+": node cleanup: get node", "node", node, "err", err)
		return
	}
	d.patchNodeAnnotation(ctx, node, gpus.AnnoHandshake, nil)
}

func (d *double) patchNodeAnnotation(ctx context.Context, node, key string, value any) {
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{key: value}}})
	if _, err := d.client.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		d.log.Warn(Banner+": patch node annotation", "node", node, "key", key, "err", err)
	}
}
