package suite

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/suite/assert"
)

// shareCases declares the sharing scenario, run in this order on one card
// (TC-18, in cases_allocenv.go, ends it).
var shareCases = []caseDecl{
	{
		Case: Case{ID: "TC-03", Title: "Three slices of one card (20000 MB + 30% on 80 GB) are bound and Running", Core: true,
			Asserts: "three pods of a quarter of the card's memory rounded down to 1000 MB (20000 MB on an " +
				"81920 MB card, 4000 on a 16 GB T4) + nvidia.com/gpucores 30, pinned to one card with " +
				"nvidia.com/use-gpuuuid, are all bound to its worker and Running",
			Needs: needsShare + " and hami.splitCount ≥ 3"},
		place: onShareCard(3),
		run:   func(ctx context.Context, t *caseT, s *stage) error { return s.share.tc03(ctx, t) },
	},
	{
		Case: Case{ID: "TC-05", Title: "TC-03's pods share one physical card", Core: true,
			Asserts: "the three TC-03 pods carry the same device UUID in hami.io/vgpu-devices-allocated, the " +
				"card they were pinned to, and the card's holders total three slices and 90% (60000 MB on " +
				"80 GB)",
			Needs: "TC-03's card"},
		place: onShareCard(3),
		after: []string{"TC-03"},
		run:   func(ctx context.Context, t *caseT, s *stage) error { return s.share.tc05(ctx, t) },
	},
	{
		Case: Case{ID: "TC-06", Title: "An oversized pod stays Pending with CardInsufficientMemory", Core: true,
			Asserts: "a pod pinned to the card asking about 10% more memory than the card has (90000 MB on " +
				"81920 MB) is declared unschedulable by kube-scheduler with HAMi's CardInsufficientMemory",
			Needs: needsShare},
		place: onShareCard(0),
		run:   func(ctx context.Context, t *caseT, s *stage) error { return s.share.tc06(ctx, t) },
	},
	{
		Case: Case{ID: "TC-07", Title: "A fourth 30% pod stays Pending with CardInsufficientCore", Core: true,
			Asserts: "with TC-03's three pods holding 90% of the card, a fourth slice (which would still fit by " +
				"memory) is declared unschedulable with CardInsufficientCore",
			Needs: "TC-03's card and hami.splitCount ≥ 4 (else the fourth is refused for the split count, not cores)"},
		place: onShareCard(4),
		after: []string{"TC-03"},
		run:   func(ctx context.Context, t *caseT, s *stage) error { return s.share.tc07(ctx, t) },
	},
	{
		Case: Case{ID: "TC-13", Title: "Deleting a pod releases its capacity",
			Asserts: "after one of TC-03's pods is deleted, a fresh slice of the same size is bound to the same " +
				"card. Real HAMi forgets deleted pods asynchronously, so a pod that was already Pending " +
				"may wait for kube-scheduler's 5-minute retry: the case uses fresh pods and retries a " +
				"fresh one if the first still met the stale count",
			Needs: "TC-03's card"},
		place: onShareCard(3),
		after: []string{"TC-03"},
		run:   func(ctx context.Context, t *caseT, s *stage) error { return s.share.tc13(ctx, t) },
	},
	{
		Case: Case{ID: "TC-16", Title: "A whole-card pod blocks sharing until deleted",
			Asserts: "a plain nvidia.com/gpu: 1 pod pinned to the emptied card is granted all of it (all its " +
				"memory, 100% cores); a small slice then stays Pending, and is bound once the whole-card " +
				"pod is deleted",
			Needs: needsShare},
		place: onShareCard(0),
		run:   func(ctx context.Context, t *caseT, s *stage) error { return s.share.tc16(ctx, t) },
	},
}

// shareCard is the sharing scenario on one card, sized from it: TC-03 →
// TC-05 → TC-06 → TC-07 → TC-13 → TC-16, in that order, sharing TC-03's
// pods. Every pod is pinned to the card, so the worker's other cards stay
// free for other scenarios.
type shareCard struct {
	place  placement
	node   string
	card   gpus.DeviceInfo
	size   shareSizes
	pods03 []podRef
}

func (b *shareCard) tenant() string { return b.place.Tenant }

func (b *shareCard) locate(ctx context.Context, t *caseT) error {
	if b.node != "" {
		return nil
	}
	p, err := t.locate(ctx, b.place)
	if err != nil {
		return err
	}
	size, ok := shareSizesFor(p.Use[0].Devmem)
	if !ok {
		return fmt.Errorf("card %s on %s registers %d MB, too little for three slices and a fourth", p.Use[0].ID, p.Node, p.Use[0].Devmem)
	}
	b.node, b.card, b.size = p.Node, p.Use[0], size
	t.step("card %s (%s, %d MB) on %s: slices of %d MB + %d%%, oversized %d MB",
		b.card.ID, b.card.Type, b.card.Devmem, b.node, size.SliceMB, sliceCores, size.OversizedMB)
	return nil
}

func (b *shareCard) slice(name string) gpuPod {
	return gpuPod{name: name, gpus: 1, memMB: b.size.SliceMB, cores: sliceCores, node: b.node, cards: []string{b.card.ID}}
}

// TC-03
func (b *shareCard) tc03(ctx context.Context, t *caseT) error {
	if err := b.locate(ctx, t); err != nil {
		return err
	}
	b.pods03 = nil
	for i := 1; i <= 3; i++ {
		p := b.slice(fmt.Sprintf("tc03-%d", i))
		got, err := t.createPod(ctx, b.tenant(), p)
		if err != nil {
			return err
		}
		b.pods03 = append(b.pods03, podRef{b.tenant(), got.Namespace, got.Name})
		t.step("created %s/%s (%s) on node %s", got.Namespace, got.Name, p.describeAsk(), b.node)
	}
	for _, ref := range b.pods03 {
		p, err := t.waitBound(ctx, ref, true)
		if err != nil {
			return err
		}
		if p.Spec.NodeName != b.node {
			return fmt.Errorf("pod %s was bound to %s, want %s", ref, p.Spec.NodeName, b.node)
		}
		t.step("pod %s is bound to %s and Running", ref, p.Spec.NodeName)
	}
	return nil
}

// allocations decodes the allocation of each pod.
func (t *caseT) allocations(ctx context.Context, refs []podRef) (map[string][]gpus.ContainerDevice, error) {
	out := map[string][]gpus.ContainerDevice{}
	for _, ref := range refs {
		t.reference(ref)
		p, err := t.client(ref.tenant).CoreV1().Pods(ref.namespace).Get(ctx, ref.name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("tenant %s: get pod %s: %w", ref.tenant, ref, err)
		}
		devs, err := assert.Allocated(ref.String(), p.Annotations)
		if err != nil {
			return nil, err
		}
		out[ref.name] = devs
	}
	return out, nil
}

// holders is every live allocation on a node, by pod, as HAMi counts it.
func (t *caseT) holders(ctx context.Context, tenant, node string) (map[string][]gpus.ContainerDevice, error) {
	pods, err := t.client(tenant).CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("tenant %s: list pods: %w", tenant, err)
	}
	out := map[string][]gpus.ContainerDevice{}
	for _, p := range pods.Items {
		if p.Annotations[gpus.AnnoVGPUNode] != node || p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded ||
			p.Status.Phase == corev1.PodFailed {
			continue
		}
		devs, err := gpus.DecodePodDevices(p.Annotations[gpus.AnnoDevicesAllocated])
		if err != nil {
			return nil, fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		out[p.Namespace+"/"+p.Name] = devs.All()
	}
	return out, nil
}

// TC-05
func (b *shareCard) tc05(ctx context.Context, t *caseT) error {
	allocs, err := t.allocations(ctx, b.pods03)
	if err != nil {
		return err
	}
	uuid, err := assert.SameCard(allocs)
	if err != nil {
		return err
	}
	for pod, devs := range allocs {
		if err := assert.OnNode(pod, b.node, devs, []gpus.DeviceInfo{b.card}); err != nil {
			return err
		}
	}
	t.step("TC-03's three pods all hold card %s (%s, %d MB) on %s", uuid, b.card.Type, b.card.Devmem, b.node)
	all, err := t.holders(ctx, b.tenant(), b.node)
	if err != nil {
		return err
	}
	if err := assert.CardTotals(uuid, all, 3*b.size.SliceMB, 3*sliceCores); err != nil {
		return fmt.Errorf("%w (holders: %v)", err, podNames(all))
	}
	mem, cores := assert.Totals(uuid, all)
	t.step("card %s holds %d MB of %d and %d%% of cores", uuid, mem, b.card.Devmem, cores)
	t.snapshot(ctx, b.tenant(), fmt.Sprintf("TC-05: TC-03's three pods share %s", uuid))
	return nil
}

func podNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TC-06
func (b *shareCard) tc06(ctx context.Context, t *caseT) error {
	if err := b.locate(ctx, t); err != nil {
		return err
	}
	mem := b.size.OversizedMB
	t.step("card %s has %d MB; asking %d MB", b.card.ID, b.card.Devmem, mem)
	return t.pending(ctx, b.tenant(), gpuPod{name: "tc06-oversized",
		gpus: 1, memMB: mem, node: b.node, cards: []string{b.card.ID}}, gpus.ReasonCardInsufficientMemory)
}

// TC-07
func (b *shareCard) tc07(ctx context.Context, t *caseT) error {
	allocs, err := t.allocations(ctx, b.pods03)
	if err != nil {
		return fmt.Errorf("TC-03's pods are not all in place: %w", err)
	}
	mem, cores := assert.Totals(b.card.ID, allocs)
	t.step("TC-03's pods hold %d MB and %d%% of %s; a fourth slice still fits by memory (%d ≤ %d) but not by cores (%d > 100)",
		mem, cores, b.card.ID, mem+b.size.SliceMB, b.card.Devmem, cores+sliceCores)
	return t.pending(ctx, b.tenant(), b.slice("tc07-fourth"), gpus.ReasonCardInsufficientCore)
}

// bindFresh creates a pod and waits for it to be bound. HAMi drops deleted
// pods from its usage asynchronously (HAMI-FACTS.md §3e), so a pod filtered
// a few ms after a delete can meet the stale count; such a pod stays
// Pending until kube-scheduler's 5-minute retry. So when the scheduler
// refuses it, bindFresh deletes it and tries a fresh pod, a few times.
func (t *caseT) bindFresh(ctx context.Context, tenant string, p gpuPod) (*corev1.Pod, error) {
	const attempts = 5
	var last string
	for i := 1; i <= attempts; i++ {
		pi := p
		pi.name = fmt.Sprintf("%s-%d", p.name, i)
		got, err := t.createPod(ctx, tenant, pi)
		if err != nil {
			return nil, err
		}
		ref := podRef{tenant, got.Namespace, got.Name}
		t.step("created %s (%s)", ref, pi.describeAsk())
		bound, msg, err := t.waitBoundOrVerdict(ctx, ref)
		if err != nil {
			return nil, err
		}
		if bound != nil {
			t.step("pod %s is bound to %s (%s)", ref, bound.Spec.NodeName, bound.Annotations[gpus.AnnoDevicesAllocated])
			return bound, nil
		}
		last = msg
		t.step("attempt %d: kube-scheduler refused %s (%q); HAMi may not have dropped a just-deleted pod "+
			"yet — deleting it and trying a fresh pod", i, ref, msg)
		if err := t.deletePod(ctx, ref); err != nil {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(i) * 500 * time.Millisecond):
		}
	}
	return nil, fmt.Errorf("%d fresh pods in a row were declared unschedulable, so the capacity was not released; the "+
		"last verdict: %s", attempts, last)
}

// TC-13
func (b *shareCard) tc13(ctx context.Context, t *caseT) error {
	if err := t.deleteCasePods(ctx, b.tenant(), "TC-07"); err != nil {
		return err
	}
	victim := b.pods03[0]
	t.reference(victim)
	if err := t.deletePod(ctx, victim); err != nil {
		return err
	}
	p, err := t.bindFresh(ctx, b.tenant(), b.slice("tc13-fresh"))
	if err != nil {
		return fmt.Errorf("after deleting %s: %w", victim, err)
	}
	devs, err := assert.Allocated(p.Namespace+"/"+p.Name, p.Annotations)
	if err != nil {
		return err
	}
	if len(devs) != 1 || devs[0].UUID != b.card.ID {
		return fmt.Errorf("pod %s/%s holds %v, want the card %s that %s released", p.Namespace, p.Name, devs, b.card.ID, victim)
	}
	t.step("the fresh pod holds %s, the card %s released", b.card.ID, victim)
	return nil
}

// emptyCard deletes every pod of this run that holds the card or is
// pinned to it; other cards of the node belong to other scenarios.
func (b *shareCard) emptyCard(ctx context.Context, t *caseT) error {
	pods, err := t.client(b.tenant()).CoreV1().Pods(metav1.NamespaceAll).List(ctx,
		metav1.ListOptions{LabelSelector: labelRun + "=" + t.r.runID})
	if err != nil {
		return fmt.Errorf("tenant %s: list pods: %w", b.tenant(), err)
	}
	n := 0
	for _, p := range pods.Items {
		if holdsOrTargets(&p, b.card.ID) {
			if err := t.deletePod(ctx, podRef{b.tenant(), p.Namespace, p.Name}); err != nil {
				return err
			}
			n++
		}
	}
	t.step("emptied card %s: deleted %d pod(s) of earlier cases", b.card.ID, n)
	return nil
}

// TC-16
func (b *shareCard) tc16(ctx context.Context, t *caseT) error {
	if err := b.locate(ctx, t); err != nil {
		return err
	}
	if err := b.emptyCard(ctx, t); err != nil {
		return err
	}
	// A plain gpu: 1 pod, as a user writes it: HAMi's webhook adds
	// gpucores: 100 and Filter grants the whole memory (defaultMemory 0).
	whole, err := t.bindFresh(ctx, b.tenant(), gpuPod{name: "tc16-whole",
		gpus: 1, node: b.node, cards: []string{b.card.ID}, viaWebhook: true})
	if err != nil {
		return err
	}
	ref := podRef{b.tenant(), whole.Namespace, whole.Name}
	devs, err := assert.Allocated(ref.String(), whole.Annotations)
	if err != nil {
		return err
	}
	if err := assert.WholeCard(ref.String(), devs, b.card); err != nil {
		return fmt.Errorf("%w (HAMi's webhook adds %s: 100 to a plain %s pod; without it the grant has 0 cores)",
			err, gpus.ResourceGPUCores, gpus.ResourceGPU)
	}
	t.step("%s holds the whole card: %s", ref, whole.Annotations[gpus.AnnoDevicesAllocated])
	t.snapshot(ctx, b.tenant(), fmt.Sprintf("TC-16: a whole-card pod holds %s", b.card.ID))
	small := gpuPod{name: "tc16-blocked", gpus: 1, memMB: b.size.SmallMB, cores: smallCores, node: b.node, cards: []string{b.card.ID}}
	if err := t.pending(ctx, b.tenant(), small, gpus.ReasonCardInsufficientMemory, gpus.ReasonCardInsufficientCore,
		gpus.ReasonExclusiveConflict); err != nil {
		return err
	}
	if err := t.deletePod(ctx, ref); err != nil {
		return err
	}
	small.name = "tc16-after"
	after, err := t.bindFresh(ctx, b.tenant(), small)
	if err != nil {
		return fmt.Errorf("after deleting the whole-card pod %s: %w", ref, err)
	}
	if d, err := assert.Allocated(after.Namespace+"/"+after.Name, after.Annotations); err != nil {
		return err
	} else if d[0].UUID != b.card.ID {
		return fmt.Errorf("pod %s/%s holds %s, want %s", after.Namespace, after.Name, d[0].UUID, b.card.ID)
	}
	t.step("once the whole-card pod was deleted, a slice was bound to %s", b.card.ID)
	return nil
}

// holdsOrTargets reports whether a pod holds the card or is pinned to it.
func holdsOrTargets(p *corev1.Pod, uuid string) bool {
	for _, u := range splitComma(p.Annotations[gpus.AnnoUseGPUUUID]) {
		if u == uuid {
			return true
		}
	}
	devs, err := gpus.DecodePodDevices(p.Annotations[gpus.AnnoDevicesAllocated])
	if err != nil {
		return false
	}
	for _, d := range devs.All() {
		if d.UUID == uuid {
			return true
		}
	}
	return false
}

func splitComma(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
