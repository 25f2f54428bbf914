package suite

// Case is one conformance case as listed by Cases.
type Case struct {
	ID    string
	Title string
	// Asserts says what the case checks and how.
	Asserts string
}

// catalog is the case list, in ID order; titles are the same in code, CLI
// selection and every report.
var catalog = []Case{
	{"TC-01", "Tenant control planes answer and report the pinned version",
		"every tenant API server answers /readyz with ok and reports the Kubernetes version the lab pins"},
	{"TC-02", "Workers joined with the spec's GPUs registered",
		"every tenant has exactly its own workers, Ready, each with hami.io/node-nvidia-register decoding to the spec's cards (model type, MB, 100% cores, healthy) and allocatable nvidia.com/gpu = split count × cards"},
	{"TC-03", "Three 20000 MB + 30% pods are bound and Running",
		"three pods of nvidia.com/gpumem 20000 + nvidia.com/gpucores 30 on the single-big-card worker are all bound to it and Running"},
	{"TC-04", "Mutating webhook reached through the Konnectivity tunnel",
		"in every tenant, a pod asking only nvidia.com/gpumem comes back from the API server with schedulerName hami-scheduler and nvidia.com/gpu: 1 added; HAMi's webhook fails open, so the mutation is the proof the API server reached it (through the tunnel, the only path from control plane to worker)"},
	{"TC-05", "TC-03's pods share one physical card",
		"the three TC-03 pods carry the same device UUID in hami.io/vgpu-devices-allocated, registered on their node, and the card's holders total 60000 MB and 90%"},
	{"TC-06", "An oversized pod stays Pending with CardInsufficientMemory",
		"a pod asking more memory than the card has (90000 MB on 81920 MB) is declared unschedulable by kube-scheduler with HAMi's CardInsufficientMemory"},
	{"TC-07", "A fourth 30% pod stays Pending with CardInsufficientCore",
		"with TC-03's three pods holding 90% of the card, a fourth 20000 MB + 30% pod is declared unschedulable with CardInsufficientCore (memory would still fit)"},
	{"TC-08", "Tenants see only their own nodes, pods, GPUs and objects",
		"each tenant's API lists only its own nodes, GPU cards and capacity and only its own suite pods; a namespace, ConfigMap and pod created in one tenant do not exist in any other"},
	{"TC-09", "A 2-GPU pod gets two distinct cards",
		"a pod with nvidia.com/gpu: 2 on a multi-card worker is bound with two different registered card UUIDs"},
	{"TC-10", "A pod asking more GPUs than the node has stays Pending",
		"a pod asking one card more than the worker has is declared unschedulable with NodeInsufficientDevice"},
	{"TC-11", "Spread by default, binpack on request",
		"two small pods land on different cards under the default spread policy, and on the same card with hami.io/gpu-scheduler-policy: binpack"},
	{"TC-12", "use-gputype: a model the tenant lacks stays Pending, one it has schedules",
		"a pod with nvidia.com/use-gputype naming a GPU type the worker lacks is declared unschedulable with CardTypeMismatch; naming the worker's own type, it is bound to a card of that type"},
	{"TC-13", "Deleting a pod releases its capacity",
		"after one of TC-03's pods is deleted, a fresh 20000 MB + 30% pod is bound to the same card. Real HAMi forgets deleted pods asynchronously, so a pod that was already Pending may wait for kube-scheduler's 5-minute retry: the case uses fresh pods and retries a fresh one if the first still met the stale count"},
	{"TC-14", "Ten GPU pods back to back all bind, with no node-lock stall",
		"ten small GPU pods created back to back on one worker are all bound within the burst timeout (below HAMi's 5-minute node-lock stall); each bind latency is reported as a metric, never asserted"},
	{"TC-15", "A tenant's credentials are rejected by every other tenant",
		"each tenant's credentials work against its own API server and get 401 Unauthorized from every other tenant's API server"},
	{"TC-16", "A whole-card pod blocks sharing until deleted",
		"a plain nvidia.com/gpu: 1 pod is granted the whole card (all its memory, 100% cores); a small slice then stays Pending, and is bound once the whole-card pod is deleted"},
}

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
