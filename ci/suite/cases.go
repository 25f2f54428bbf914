package suite

// Case is one conformance case as listed by Cases.
type Case struct {
	ID    string
	Title string
	// Asserts says what the case checks and how.
	Asserts string
	// Needs says what hardware the case needs; a lab without it skips the
	// case with that reason.
	Needs string
	// Core marks the seed lab's eight checks: a core case skipped is shown
	// in the summary and fails the run with Config.FailOnSkip.
	Core bool
}

// catalog is the case list, in ID order; titles are the same in code, CLI
// selection and every report.
var catalog = []Case{
	{ID: "TC-01", Title: "Tenant control planes answer and report the pinned version", Core: true,
		Asserts: "every tenant API server answers /readyz with ok and reports the Kubernetes version the lab pins",
		Needs:   "nothing"},
	{ID: "TC-02", Title: "Workers joined with the spec's GPUs registered", Core: true,
		Asserts: "every tenant has exactly its own workers, Ready, each with hami.io/node-nvidia-register decoding to the spec's cards (model type, MB, 100% cores, healthy) and allocatable nvidia.com/gpu = split count × cards",
		Needs:   "nothing"},
	{ID: "TC-03", Title: "Three slices of one card (20000 MB + 30% on 80 GB) are bound and Running", Core: true,
		Asserts: "three pods of a quarter of the card's memory rounded down to 1000 MB (20000 MB on an 81920 MB card, 4000 on a 16 GB T4) + nvidia.com/gpucores 30, pinned to one card with nvidia.com/use-gpuuuid, are all bound to its worker and Running",
		Needs:   needsShare + " and hami.splitCount ≥ 3"},
	{ID: "TC-04", Title: "Mutating webhook reached through the Konnectivity tunnel", Core: true,
		Asserts: "in every tenant, a pod asking only nvidia.com/gpumem comes back from the API server with schedulerName hami-scheduler and nvidia.com/gpu: 1 added; HAMi's webhook fails open, so the mutation is the proof the API server reached it (through the tunnel, the only path from control plane to worker)",
		Needs:   "nothing"},
	{ID: "TC-05", Title: "TC-03's pods share one physical card", Core: true,
		Asserts: "the three TC-03 pods carry the same device UUID in hami.io/vgpu-devices-allocated, the card they were pinned to, and the card's holders total three slices and 90% (60000 MB on 80 GB)",
		Needs:   "TC-03's card"},
	{ID: "TC-06", Title: "An oversized pod stays Pending with CardInsufficientMemory", Core: true,
		Asserts: "a pod pinned to the card asking about 10% more memory than the card has (90000 MB on 81920 MB) is declared unschedulable by kube-scheduler with HAMi's CardInsufficientMemory",
		Needs:   needsShare},
	{ID: "TC-07", Title: "A fourth 30% pod stays Pending with CardInsufficientCore", Core: true,
		Asserts: "with TC-03's three pods holding 90% of the card, a fourth slice (which would still fit by memory) is declared unschedulable with CardInsufficientCore",
		Needs:   "TC-03's card and hami.splitCount ≥ 4 (else the fourth is refused for the split count, not cores)"},
	{ID: "TC-08", Title: "Tenants see only their own nodes, pods, GPUs and objects", Core: true,
		Asserts: "each tenant's API lists only its own nodes, GPU cards and capacity and only its own suite pods; a namespace, ConfigMap and pod created in one tenant do not exist in any other",
		Needs:   "nothing (one tenant: only its own view is checked)"},
	{ID: "TC-09", Title: "A 2-GPU pod gets two distinct cards",
		Asserts: "a pod with nvidia.com/gpu: 2, pinned to two cards of one worker, is bound with both, two different registered card UUIDs",
		Needs:   needsPair},
	{ID: "TC-10", Title: "A pod asking more GPUs than the node has stays Pending",
		Asserts: "a pod asking one card more than its worker has is declared unschedulable with NodeInsufficientDevice",
		Needs:   "a worker with a card"},
	{ID: "TC-11", Title: "Spread by default, binpack on request",
		Asserts: "two small pods pinned to the same two cards land on different cards under the default spread policy, and on the same card with hami.io/gpu-scheduler-policy: binpack",
		Needs:   needsPair + " and hami.splitCount ≥ 2"},
	{ID: "TC-12", Title: "use-gputype: a model the tenant lacks stays Pending, one it has schedules",
		Asserts: "a pod with nvidia.com/use-gputype naming a GPU type the worker lacks is declared unschedulable with CardTypeMismatch; naming a card's own type, it is bound to that card",
		Needs:   "a worker that lacks some GPU type of the lab or the catalog (any worker does, unless it has every type)"},
	{ID: "TC-13", Title: "Deleting a pod releases its capacity",
		Asserts: "after one of TC-03's pods is deleted, a fresh slice of the same size is bound to the same card. Real HAMi forgets deleted pods asynchronously, so a pod that was already Pending may wait for kube-scheduler's 5-minute retry: the case uses fresh pods and retries a fresh one if the first still met the stale count",
		Needs:   "TC-03's card"},
	{ID: "TC-14", Title: "Ten GPU pods back to back all bind, with no node-lock stall",
		Asserts: "ten small GPU pods created back to back, pinned to the fewest cards of one worker that hold them, are all bound within the burst timeout (below HAMi's 5-minute node-lock stall); each bind latency is reported as a metric, never asserted",
		Needs:   "a worker whose cards hold ten small pods at once (one card with hami.splitCount ≥ 10 and 10000 MB does)"},
	{ID: "TC-15", Title: "A tenant's credentials are rejected by every other tenant",
		Asserts: "each tenant's credentials work against its own API server and get 401 Unauthorized from every other tenant's API server",
		Needs:   "two tenants"},
	{ID: "TC-16", Title: "A whole-card pod blocks sharing until deleted",
		Asserts: "a plain nvidia.com/gpu: 1 pod pinned to the emptied card is granted all of it (all its memory, 100% cores); a small slice then stays Pending, and is bound once the whole-card pod is deleted",
		Needs:   needsShare},
	{ID: "TC-17", Title: "Node policy: binpack fills one node, spread on request picks another",
		Asserts: "on two GPU workers of one tenant, a small pod and then a second one land on the same node under the lab's node policy (--node-scheduler-policy binpack, HAMi's chart default); a third with hami.io/node-scheduler-policy: spread lands on the other, emptier node",
		Needs:   "a tenant with two GPU workers and hami.splitCount ≥ 2"},
	{ID: "TC-18", Title: "A GPU pod's container gets HAMi's Allocate environment: memory and core limits as requested",
		Asserts: "a pod asking TC-03's slice (20000 MB + 30% on 80 GB) pinned to the emptied card runs and prints its environment; its container log (kept verbatim as diagnostics/TC-18/container-env.log) has CUDA_DEVICE_MEMORY_LIMIT_0 = the request in HAMi's unit (20000m), CUDA_DEVICE_SM_LIMIT = the cores (30), NVIDIA_VISIBLE_DEVICES = the card HAMi allocated, and no second card's limit — what HAMi's device plugin sets in Allocate (plugin/server.go:833-837, :1057-1058@v2.10.0)",
		Needs:   needsShare + "; HAMi's device plugin on the card's worker: the real lab runs it; where the card's tenant does not (the local test environment, which has no kubelet) the case is skipped saying so"},
	{ID: "TC-19", Title: "A bound GPU pod's bind phase turns success and its node lock is released within seconds",
		Asserts: "a small slice (1000 MB + 10% on an 80 GB card) pinned to a card is bound to its worker, and within 5s of the bind (as the suite sees it) its hami.io/bind-phase is success and the worker Node's hami.io/mutex.lock no longer names it — what HAMi's device plugin does at the end of Allocate (plugin/util.go:392-405@v2.10.0); bind-phase failed fails at once; the times from the bind to each are reported as metrics, asserted only against the bound",
		Needs:   "a worker with a card; HAMi's device plugin finishes the bind on the real lab, gpu-lab's bind finalizer in its place in the local test environment, so the case runs in both"},
	{ID: "TC-20", Title: "The kubelet counts HAMi's device plugin's devices: nvidia.com/gpu capacity = allocatable = split × cards",
		Asserts: "every tenant runs DaemonSet kube-system/hami-device-plugin, and every worker's Node has nvidia.com/gpu in capacity and in allocatable equal to hami.splitCount × its cards, and no nvidia.com/gpumem capacity (the plugin registers only nvidia.com/gpu; another writer of the Node's status would fight it)",
		Needs:   "HAMi's device plugin on the workers: the real lab runs it; where no tenant does (the local test environment, which has no kubelet) the case is skipped saying so"},
}

// What the GPU cases need, in the words of --list and skip reasons.
const (
	needsShare = "a card of at least 4 MB (sizes scale with the card)"
	needsPair  = "a worker with two or more cards"
)

// Cases lists every case, in ID order.
func Cases() []Case { return append([]Case(nil), catalog...) }

func caseByID(id string) Case {
	for _, c := range catalog {
		if c.ID == id {
			return c
		}
	}
	panic("unknown case " + id)
}
