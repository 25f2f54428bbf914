package suite

import (
	"context"
	"fmt"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/suite/assert"
)

// multiCardCases declares the two-card scenario (TC-09 → TC-11), then TC-10
// on its own and TC-12 on a card of its own. TC-10 after TC-11 keeps the
// order the tasks have always started in.
var multiCardCases = []caseDecl{
	{
		Case: Case{ID: "TC-09", Title: "A 2-GPU pod gets two distinct cards",
			Asserts: "a pod with nvidia.com/gpu: 2, pinned to two cards of one worker, is bound with both, two " +
				"different registered card UUIDs",
			Needs: needsPair},
		place: onTwoCards(0),
		run:   func(ctx context.Context, t *caseT, s *stage) error { return s.pair.tc09(ctx, t) },
	},
	{
		Case: Case{ID: "TC-11", Title: "Spread by default, binpack on request",
			Asserts: "two small pods pinned to the same two cards land on different cards under the default " +
				"spread policy, and on the same card with hami.io/gpu-scheduler-policy: binpack",
			Needs: needsPair + " and hami.splitCount ≥ 2"},
		place: onTwoCards(2),
		run:   func(ctx context.Context, t *caseT, s *stage) error { return s.pair.tc11(ctx, t) },
	},
	{
		Case: Case{ID: "TC-10", Title: "A pod asking more GPUs than the node has stays Pending",
			Asserts: "a pod asking one card more than its worker has is declared unschedulable with NodeInsufficientDevice",
			Needs:   "a worker with a card"},
		place: onGPUWorker,
		run:   func(ctx context.Context, t *caseT, s *stage) error { return tc10(ctx, t, *s.hw.Count) },
	},
	{
		Case: Case{ID: "TC-12", Title: "use-gputype: a model the tenant lacks stays Pending, one it has schedules",
			Asserts: "a pod with nvidia.com/use-gputype naming a GPU type the worker lacks is declared " +
				"unschedulable with CardTypeMismatch; naming a card's own type, it is bound to that card",
			Needs: "a worker that lacks some GPU type of the lab or the catalog (any worker does, unless it has every type)"},
		place: onCards(lackingTypeCard, 0, ""),
		run:   func(ctx context.Context, t *caseT, s *stage) error { return tc12(ctx, t, *s.hw.Type, s.hw.LackingType) },
	},
}

// multiCard is the scenario on two cards of one worker: TC-09 → TC-11, each
// pinning its pods to those two cards and leaving them empty for the next.
type multiCard struct {
	place placement
	at    placed
	small int
}

func (m *multiCard) tenant() string { return m.place.Tenant }

func (m *multiCard) locate(ctx context.Context, t *caseT) error {
	if m.at.Node != "" {
		return nil
	}
	p, err := t.locate(ctx, m.place)
	if err != nil {
		return err
	}
	var mems []int
	for _, d := range p.Use {
		mems = append(mems, d.Devmem)
	}
	m.at, m.small = p, smallMBOf(mems)
	return nil
}

func (m *multiCard) smallPod(name string) gpuPod {
	return gpuPod{name: name, gpus: 1, memMB: m.small, cores: smallCores, node: m.at.Node, cards: m.at.uuids()}
}

// boundDevices creates a pod, waits for it to be bound (and for HAMi's
// node lock to be released, so the case's next pod does not meet it) and
// returns its devices.
func (t *caseT) boundDevices(ctx context.Context, tenant string, p gpuPod) (podRef, []gpus.ContainerDevice, error) {
	got, err := t.createPod(ctx, tenant, p)
	if err != nil {
		return podRef{}, nil, err
	}
	ref := podRef{tenant, got.Namespace, got.Name}
	t.step("created %s (%s)", ref, p.describeAsk())
	bp, err := t.waitBound(ctx, ref, false)
	if err != nil {
		return ref, nil, err
	}
	t.waitLockReleased(ctx, ref, bp.Spec.NodeName)
	devs, err := assert.Allocated(ref.String(), bp.Annotations)
	if err != nil {
		return ref, nil, err
	}
	t.step("pod %s is bound to %s holding %s", ref, bp.Spec.NodeName, bp.Annotations[gpus.AnnoDevicesAllocated])
	return ref, devs, nil
}

// TC-09
func (m *multiCard) tc09(ctx context.Context, t *caseT) error {
	if err := m.locate(ctx, t); err != nil {
		return err
	}
	p := m.smallPod("tc09-two-gpus")
	p.gpus = 2
	ref, devs, err := t.boundDevices(ctx, m.tenant(), p)
	if err != nil {
		return err
	}
	if err := assert.DistinctCards(ref.String(), devs, 2); err != nil {
		return err
	}
	if err := assert.OnNode(ref.String(), m.at.Node, devs, m.at.Use); err != nil {
		return fmt.Errorf("%w (the pod was pinned to %s)", err, strings.Join(m.at.uuids(), ", "))
	}
	t.step("pod %s holds two distinct cards: %s and %s", ref, devs[0].UUID, devs[1].UUID)
	t.snapshot(ctx, m.tenant(), fmt.Sprintf("TC-09: a 2-GPU pod holds %s and %s", devs[0].UUID, devs[1].UUID))
	return t.deletePod(ctx, ref)
}

// TC-10: a node-level check that holds no card, so it runs on its own.
func tc10(ctx context.Context, t *caseT, s site) error {
	w, err := t.findWorker(ctx, s)
	if err != nil {
		return err
	}
	p := gpuPod{name: "tc10-too-many", gpus: len(w.Cards) + 1, memMB: smallMBFor(w.Cards[0].Devmem), cores: smallCores, node: w.Node.Name}
	t.step("node %s has %d cards; asking %d", w.Node.Name, len(w.Cards), p.gpus)
	return t.pending(ctx, s.Tenant, p, gpus.ReasonNodeInsufficientDevice)
}

// TC-11
func (m *multiCard) tc11(ctx context.Context, t *caseT) error {
	if err := m.locate(ctx, t); err != nil {
		return err
	}
	// Spread: the second pod is created once the first is bound, so HAMi
	// sees the first one's usage.
	var refs []podRef
	var uuids []string
	for i := 1; i <= 2; i++ {
		ref, devs, err := t.boundDevices(ctx, m.tenant(), m.smallPod(fmt.Sprintf("tc11-spread-%d", i)))
		if err != nil {
			return err
		}
		refs, uuids = append(refs, ref), append(uuids, devs[0].UUID)
	}
	if uuids[0] == uuids[1] {
		return fmt.Errorf("under the default (spread) policy %s and %s both landed on %s, want different cards",
			refs[0].name, refs[1].name, uuids[0])
	}
	t.step("spread: the two pods are on different cards (%s)", strings.Join(uuids, ", "))
	for _, r := range refs {
		if err := t.deletePod(ctx, r); err != nil {
			return err
		}
	}
	refs, uuids = nil, nil
	for i := 1; i <= 2; i++ {
		p := m.smallPod(fmt.Sprintf("tc11-binpack-%d", i))
		p.annotations = map[string]string{gpus.AnnoGPUPolicy: "binpack"}
		ref, devs, err := t.boundDevices(ctx, m.tenant(), p)
		if err != nil {
			return err
		}
		refs, uuids = append(refs, ref), append(uuids, devs[0].UUID)
	}
	if uuids[0] != uuids[1] {
		return fmt.Errorf("with %s: binpack %s landed on %s and %s on %s, want the same card",
			gpus.AnnoGPUPolicy, refs[0].name, uuids[0], refs[1].name, uuids[1])
	}
	t.step("binpack: both pods are on %s", uuids[0])
	t.snapshot(ctx, m.tenant(), fmt.Sprintf("TC-11: binpack put two pods on %s", uuids[0]))
	for _, r := range refs {
		if err := t.deletePod(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// TC-12
func tc12(ctx context.Context, t *caseT, pl placement, lacking string) error {
	at, err := t.locate(ctx, pl)
	if err != nil {
		return err
	}
	card := at.Use[0]
	small := smallMBFor(card.Devmem)
	p := gpuPod{name: "tc12-lacking", gpus: 1, memMB: small, cores: smallCores, node: at.Node, cards: at.uuids(),
		annotations: map[string]string{gpus.AnnoUseGPUType: lacking}}
	t.step("node %s has no card of type %s", at.Node, lacking)
	if err := t.pending(ctx, pl.Tenant, p, gpus.ReasonCardTypeMismatch); err != nil {
		return err
	}
	own := card.Type
	p.name = "tc12-own"
	p.annotations = map[string]string{gpus.AnnoUseGPUType: own}
	ref, devs, err := t.boundDevices(ctx, pl.Tenant, p)
	if err != nil {
		return err
	}
	for _, d := range devs {
		for _, c := range at.All {
			if c.ID == d.UUID && !strings.Contains(strings.ToLower(c.Type), strings.ToLower(own)) {
				return fmt.Errorf("pod %s asked for type %s and got card %s of type %s", ref, own, c.ID, c.Type)
			}
		}
	}
	if err := assert.OnNode(ref.String(), at.Node, devs, at.Use); err != nil {
		return err
	}
	t.step("asking its card's own type %s, pod %s was bound to card %s", own, ref, devs[0].UUID)
	t.snapshot(ctx, pl.Tenant, fmt.Sprintf("TC-12: a %s pod holds %s", own, devs[0].UUID))
	return t.deletePod(ctx, ref)
}
