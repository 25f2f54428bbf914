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
	m := newNodeMatcher(l, tenant, nodes)
	var missing []string
	for _, w := range t.Workers {
		n := m.byUUID(w)
		if n == nil {
			n = m.byName(w)
		}
		if n == nil && len(t.Workers) == 1 && len(nodes) == 1 {
			n = &nodes[0]
		}
		if n == nil {
			missing = append(missing, w.Name)
			continue
		}
		m.used[n.Name] = true
		matched = append(matched, workerNode{Worker: w, Node: n, Cards: m.cardsOf[n.Name]})
	}
	extra = m.unused()
	if len(missing) > 0 {
		return matched, extra, noNodeError(l, tenant, missing, nodes)
	}
	return matched, extra, nil
}

// nodeMatcher looks up spec workers among a tenant's nodes; a node once
// matched (used) is not matched again.
type nodeMatcher struct {
	l       *lab.Lab
	tenant  string
	nodes   []corev1.Node
	used    map[string]bool
	cardsOf map[string][]gpus.DeviceInfo // each node's registered cards
}

// newNodeMatcher decodes every node's registered cards once; a node
// without them is matched by name only.
func newNodeMatcher(l *lab.Lab, tenant string, nodes []corev1.Node) *nodeMatcher {
	m := &nodeMatcher{l: l, tenant: tenant, nodes: nodes,
		used: map[string]bool{}, cardsOf: map[string][]gpus.DeviceInfo{}}
	for i := range nodes {
		m.cardsOf[nodes[i].Name], _ = nodeCards(&nodes[i])
	}
	return m
}

// byUUID is the unused node whose registered cards all carry the UUIDs
// gpu-lab gives the worker's cards, or nil.
func (m *nodeMatcher) byUUID(w lab.Worker) *corev1.Node {
	want := map[string]bool{}
	for _, c := range w.Cards() {
		want[gpus.CardUUID(m.l.Name, m.tenant, w.Name, c.Index)] = true
	}
	for i := range m.nodes {
		n := &m.nodes[i]
		if m.used[n.Name] || len(m.cardsOf[n.Name]) == 0 {
			continue
		}
		all := true
		for _, d := range m.cardsOf[n.Name] {
			all = all && want[d.ID]
		}
		if all {
			return n
		}
	}
	return nil
}

// byName is the unused node named as gpu-lab names the worker's node, else
// named as the worker, or nil.
func (m *nodeMatcher) byName(w lab.Worker) *corev1.Node {
	for _, name := range []string{m.l.NodeName(m.tenant, w.Name), w.Name} {
		for i := range m.nodes {
			if n := &m.nodes[i]; !m.used[n.Name] && n.Name == name {
				return n
			}
		}
	}
	return nil
}

// unused are the names of the nodes no worker matched, sorted.
func (m *nodeMatcher) unused() []string {
	var extra []string
	for _, n := range m.nodes {
		if !m.used[n.Name] {
			extra = append(extra, n.Name)
		}
	}
	sort.Strings(extra)
	return extra
}

// noNodeError says which spec workers have no node, what nodes there are
// and how a worker's node is found.
func noNodeError(l *lab.Lab, tenant string, missing []string, nodes []corev1.Node) error {
	var names []string
	for _, n := range nodes {
		names = append(names, n.Name)
	}
	return fmt.Errorf("tenant %s: no node for spec worker(s) %s "+
		"(nodes: %s; a worker's node is found by its registered card UUIDs or named %s-%s-<worker>)",
		tenant, strings.Join(missing, ", "), strings.Join(names, ", "), l.Name, tenant)
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
			return placed{}, fmt.Errorf("node %s registers no card with index %d (it registers %d card(s)); the spec gives worker "+
				"%s card %d: %s", w.Node.Name, c.Index, len(w.Cards), p.site, c.Index, c.Model)
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
