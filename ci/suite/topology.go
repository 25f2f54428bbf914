package suite

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// workerNode is a spec worker found among a tenant's nodes.
type workerNode struct {
	Worker lab.Worker
	Node   *corev1.Node
	// Cards are the node's decoded register annotation (nil if absent).
	Cards []gpus.DeviceInfo
}

// nodeCards decodes a node's HAMi register annotation.
func nodeCards(n *corev1.Node) ([]gpus.DeviceInfo, error) {
	v, ok := n.Annotations[gpus.AnnoRegister]
	if !ok {
		return nil, fmt.Errorf("node %s has no %s annotation: its GPUs are not registered with HAMi", n.Name, gpus.AnnoRegister)
	}
	devs, err := gpus.DecodeRegister(v)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", n.Name, err)
	}
	return devs, nil
}

// matchWorkers pairs the tenant's spec workers with its nodes: by the card
// UUIDs gpu-lab registers (lab and local test environment), else by the
// node name gpu-lab gives a worker ("<lab>-<tenant>-<worker>") or the
// worker's own name, else — one worker, one node — by elimination (an
// existing platform). Nodes left over are returned too.
func matchWorkers(l *lab.Lab, tenant string, nodes []corev1.Node) (matched []workerNode, extra []string, err error) {
	t := l.Tenant(tenant)
	if t == nil {
		return nil, nil, fmt.Errorf("lab %q has no tenant %s", l.Name, tenant)
	}
	used := map[string]bool{}
	cardsOf := map[string][]gpus.DeviceInfo{}
	for i := range nodes {
		cardsOf[nodes[i].Name], _ = nodeCards(&nodes[i])
	}
	byUUID := func(w lab.Worker) *corev1.Node {
		want := map[string]bool{}
		for _, c := range w.Cards() {
			want[gpus.CardUUID(l.Name, tenant, w.Name, c.Index)] = true
		}
		for i := range nodes {
			n := &nodes[i]
			if used[n.Name] || len(cardsOf[n.Name]) == 0 {
				continue
			}
			all := true
			for _, d := range cardsOf[n.Name] {
				all = all && want[d.ID]
			}
			if all {
				return n
			}
		}
		return nil
	}
	byName := func(w lab.Worker) *corev1.Node {
		for _, name := range []string{l.NodeName(tenant, w.Name), w.Name} {
			for i := range nodes {
				if n := &nodes[i]; !used[n.Name] && n.Name == name {
					return n
				}
			}
		}
		return nil
	}
	var missing []string
	for _, w := range t.Workers {
		n := byUUID(w)
		if n == nil {
			n = byName(w)
		}
		if n == nil && len(t.Workers) == 1 && len(nodes) == 1 {
			n = &nodes[0]
		}
		if n == nil {
			missing = append(missing, w.Name)
			continue
		}
		used[n.Name] = true
		matched = append(matched, workerNode{Worker: w, Node: n, Cards: cardsOf[n.Name]})
	}
	for _, n := range nodes {
		if !used[n.Name] {
			extra = append(extra, n.Name)
		}
	}
	sort.Strings(extra)
	if len(missing) > 0 {
		var names []string
		for _, n := range nodes {
			names = append(names, n.Name)
		}
		return matched, extra, fmt.Errorf("tenant %s: no node for spec worker(s) %s (nodes: %s; a worker's node is found by its registered card UUIDs or named %s-%s-<worker>)",
			tenant, strings.Join(missing, ", "), strings.Join(names, ", "), l.Name, tenant)
	}
	return matched, extra, nil
}

// findWorker returns the node of one spec worker, with its registered cards.
func (t *caseT) findWorker(ctx context.Context, s site) (workerNode, error) {
	nodes, err := t.client(s.Tenant).CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return workerNode{}, fmt.Errorf("tenant %s: list nodes: %w", s.Tenant, err)
	}
	matched, _, err := matchWorkers(t.r.cfg.Lab, s.Tenant, nodes.Items)
	for _, m := range matched {
		if m.Worker.Name == s.Worker.Name {
			if len(m.Cards) == 0 {
				_, cerr := nodeCards(m.Node)
				return workerNode{}, cerr
			}
			t.step("worker %s is node %s with %d registered card(s)", s, m.Node.Name, len(m.Cards))
			return m, nil
		}
	}
	if err == nil {
		err = fmt.Errorf("tenant %s: no node for worker %s", s.Tenant, s.Worker.Name)
	}
	return workerNode{}, err
}

// placed is a placement found on the platform: the worker's node, the
// registered device of each card the placement uses (in its order) and
// every card the node registers.
type placed struct {
	Node string
	Use  []gpus.DeviceInfo
	All  []gpus.DeviceInfo
}

// uuids are the registered UUIDs of the placement's cards.
func (p placed) uuids() []string {
	out := make([]string, len(p.Use))
	for i, d := range p.Use {
		out[i] = d.ID
	}
	return out
}

// locate finds the placement's node and the cards it registers under the
// spec's card indices. Sizes are then taken from the registered cards (what
// HAMi schedules against), which TC-02 holds to the spec.
func (t *caseT) locate(ctx context.Context, p placement) (placed, error) {
	w, err := t.findWorker(ctx, p.site)
	if err != nil {
		return placed{}, err
	}
	out := placed{Node: w.Node.Name, All: w.Cards}
	for _, c := range p.Use {
		d, ok := deviceAt(w.Cards, c.Index)
		if !ok {
			return placed{}, fmt.Errorf("node %s registers no card with index %d (it registers %d card(s)); the spec gives worker %s card %d: %s", w.Node.Name, c.Index, len(w.Cards), p.site, c.Index, c.Model)
		}
		out.Use = append(out.Use, d)
	}
	return out, nil
}

func deviceAt(devs []gpus.DeviceInfo, index int) (gpus.DeviceInfo, bool) {
	for _, d := range devs {
		if d.Index == index {
			return d, true
		}
	}
	return gpus.DeviceInfo{}, false
}
