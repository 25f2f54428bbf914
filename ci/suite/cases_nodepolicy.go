package suite

import (
	"context"
	"fmt"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// nodePolicyCases declares TC-17, on every card of two workers.
var nodePolicyCases = []caseDecl{
	{
		Case: Case{ID: "TC-17", Title: "Node policy: binpack fills one node, spread on request picks another",
			Asserts: "on two GPU workers of one tenant, a small pod and then a second one land on the same node " +
				"under the lab's node policy (--node-scheduler-policy binpack, HAMi's chart default); a " +
				"third with hami.io/node-scheduler-policy: spread lands on the other, emptier node",
			Needs: "a tenant with two GPU workers and hami.splitCount ≥ 2"},
		place: onCards(twoWorkers, 0, ""),
		run:   func(ctx context.Context, t *caseT, s *stage) error { return tc17(ctx, t, s.hw.Nodes) },
	},
}

// nodePolicySpread is the value of hami.io/node-scheduler-policy that asks
// for spread: util.NodeSchedulerPolicySpread ("spread", pkg/util/types.go
// @v2.10.0). Any other value, or none, sorts nodes for binpack
// (NodeScoreList.Less, pkg/scheduler/policy/node_policy.go@v2.10.0).
const nodePolicySpread = "spread"

// TC-17: HAMi's node policy across two GPU workers of one tenant. HAMi
// scores every node that fits by its usage (ComputeDefaultScore: grants,
// cores and memory used over the node's totals, node_policy.go@v2.10.0),
// sorts the scores by the pod's policy (hami.io/node-scheduler-policy, else
// --node-scheduler-policy: resolveNodeSchedulerPolicy,
// pkg/scheduler/score.go@v2.10.0) and answers kube-scheduler with the last
// node only (Filter, pkg/scheduler/scheduler.go@v2.10.0). So under binpack
// a second pod joins the busier node, and spread sends a third to the
// emptier one. The pods are held to the two nodes by node affinity, and the
// scenario holds every card of both, so no other case moves the scores.
func tc17(ctx context.Context, t *caseT, ws []placement) error {
	if render.HAMiNodePolicy != "binpack" {
		return fmt.Errorf("the lab renders --node-scheduler-policy=%s; this case is written for binpack, HAMi chart 2.10.0's default",
			render.HAMiNodePolicy)
	}
	tenant := ws[0].Tenant
	nodes, mems, err := placementNodes(ctx, t, ws)
	if err != nil {
		return err
	}
	small := smallMBOf(mems)
	pod := func(name string) gpuPod {
		return gpuPod{name: name, gpus: 1, memMB: small, cores: smallCores, nodes: nodes}
	}
	bind := func(p gpuPod) (podRef, string, error) { return t.bindOnEither(ctx, tenant, p, nodes) }
	var refs []podRef
	ref1, first, err := bind(pod("tc17-default-1"))
	if err != nil {
		return err
	}
	refs = append(refs, ref1)
	ref2, second, err := bind(pod("tc17-default-2"))
	if err != nil {
		return err
	}
	refs = append(refs, ref2)
	if second != first {
		return fmt.Errorf("under the lab's node policy (%s) pod %s went to %s, want %s, the node %s already uses",
			render.HAMiNodePolicy, ref2, second, first, ref1)
	}
	t.step("binpack (the lab's --node-scheduler-policy): both pods are on %s", first)

	p3 := pod("tc17-spread")
	p3.annotations = map[string]string{gpus.AnnoNodePolicy: nodePolicySpread}
	ref3, third, err := bind(p3)
	if err != nil {
		return err
	}
	refs = append(refs, ref3)
	if third == first {
		return fmt.Errorf("with %s: %s pod %s went to %s with the other two, want the emptier node %s",
			gpus.AnnoNodePolicy, nodePolicySpread, ref3, third, other(nodes, first))
	}
	t.step("spread on request: pod %s is on %s, the emptier node", ref3, third)
	t.snapshot(ctx, tenant, fmt.Sprintf("TC-17: binpack filled %s, spread chose %s", first, third))
	for _, r := range refs {
		if err := t.deletePod(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// placementNodes are the nodes of the placements, in their order, and the
// registered memory of every card they use (which sizes TC-17's small pods).
func placementNodes(ctx context.Context, t *caseT, ws []placement) (nodes []string, mems []int, err error) {
	for _, w := range ws {
		at, err := t.locate(ctx, w)
		if err != nil {
			return nil, nil, err
		}
		nodes = append(nodes, at.Node)
		for _, d := range at.Use {
			mems = append(mems, d.Devmem)
		}
	}
	return nodes, mems, nil
}

// bindOnEither creates the pod, held to the two nodes, and waits for it
// bound; it returns the pod and the node it is bound to. Once created, the
// pod is returned even on error.
func (t *caseT) bindOnEither(ctx context.Context, tenant string, p gpuPod, nodes []string) (podRef, string, error) {
	got, err := t.createPod(ctx, tenant, p)
	if err != nil {
		return podRef{}, "", err
	}
	ref := podRef{tenant, got.Namespace, got.Name}
	t.step("created %s (%s) on either %s or %s", ref, p.describeAsk(), nodes[0], nodes[1])
	bound, err := t.waitBound(ctx, ref, false)
	if err != nil {
		return ref, "", err
	}
	t.step("pod %s is bound to %s", ref, bound.Spec.NodeName)
	return ref, bound.Spec.NodeName, nil
}

func other(nodes []string, n string) string {
	for _, x := range nodes {
		if x != n {
			return x
		}
	}
	return n
}
