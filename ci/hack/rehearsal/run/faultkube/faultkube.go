// Package faultkube is the Kubernetes side of `rehearse run --fault`: what
// the hidden `rehearse run fault-kube` does inside the private daemon's
// network namespace, where the lab's API servers are (the management
// cluster's on the namespace's loopback, the tenants' NodePorts on its
// bridge), with the kubeconfigs `labctl up` wrote into its state directory.
//
// It only reads and deletes; it decides nothing. Each verb prints one JSON
// object per line on stdout (Line), which ci/hack/rehearsal/run reads: which pods
// it deleted, which are Ready, which etcd member leads, whether a node's
// kubelet is back. The rehearsal runs it as a process (nsenter, then this
// command) rather than calling client-go itself because the rehearsal runs
// in the host's network namespace, from which none of those servers is
// reachable; entering a namespace from Go is per thread and would leak into
// the rest of the process.
package faultkube

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
)

// The verbs of `rehearse run fault-kube VERB`.
const (
	VerbPods    = "pods"         // list pods by selector
	VerbDelete  = "delete"       // delete pods by selector (and name, uid)
	VerbMembers = "etcd-members" // pods by selector, each with its etcd metrics
	VerbNode    = "node"         // a node's Ready and its kubelet's last lease renewal
)

// Verbs lists them, for the command's help and its error.
var Verbs = []string{VerbPods, VerbDelete, VerbMembers, VerbNode}

// Pod is one pod as a fault sees it.
type Pod struct {
	Name string `json:"name"`
	UID  string `json:"uid"`
	// Ready: condition Ready is True and the pod is not being deleted (a
	// terminating pod may still say Ready).
	Ready bool `json:"ready"`
	// Deleted: this command deleted it.
	Deleted bool `json:"deleted,omitempty"`
	// Etcd is the member's own view (verb etcd-members only).
	Etcd *Member `json:"etcd,omitempty"`
}

// Member is what an etcd member's metrics say of its cluster.
type Member struct {
	IsLeader  bool `json:"isLeader"`
	HasLeader bool `json:"hasLeader"`
	// Err says why its metrics could not be read (the other fields are
	// then false).
	Err string `json:"err,omitempty"`
}

// Node is one node's state.
type Node struct {
	Name  string `json:"name"`
	Ready bool   `json:"ready"`
	// LeaseRenewed is its kubelet's last renewal of the node's Lease; zero
	// when there is none.
	LeaseRenewed time.Time `json:"leaseRenewed,omitzero"`
}

// Line is one line of output: exactly one field is set.
type Line struct {
	Pod  *Pod  `json:"pod,omitempty"`
	Node *Node `json:"node,omitempty"`
}

// Decode reads a line the command printed; ok is false for anything else
// (nsenter's or the command's own messages).
func Decode(s string) (Line, bool) {
	var l Line
	if !strings.HasPrefix(strings.TrimSpace(s), "{") || json.Unmarshal([]byte(s), &l) != nil {
		return Line{}, false
	}
	return l, l.Pod != nil || l.Node != nil
}

// Op is one invocation.
type Op struct {
	Verb      string
	Namespace string
	// Selector is a label selector (pods, delete, etcd-members).
	Selector string
	// Name narrows delete to one pod, or names the node.
	Name string
	// UID, with Name, deletes that pod only if it still has this UID
	// (a precondition: the pod a StatefulSet recreated under the same name
	// is not deleted by mistake).
	UID string
	// MetricsPort is the port an etcd member serves plain-HTTP metrics on.
	MetricsPort int
}

// Check says what an Op lacks.
func (o Op) Check() error {
	need := func(what, v string) error {
		if v == "" {
			return fmt.Errorf("fault-kube %s needs %s", o.Verb, what)
		}
		return nil
	}
	switch o.Verb {
	case VerbPods, VerbDelete:
		if err := need("--namespace", o.Namespace); err != nil {
			return err
		}
		return need("--selector", o.Selector)
	case VerbMembers:
		if o.MetricsPort <= 0 {
			return fmt.Errorf("fault-kube %s needs --metrics-port", o.Verb)
		}
		if err := need("--namespace", o.Namespace); err != nil {
			return err
		}
		return need("--selector", o.Selector)
	case VerbNode:
		return need("--name", o.Name)
	}
	return fmt.Errorf("fault-kube: unknown verb %q, want one of %s", o.Verb, strings.Join(Verbs, ", "))
}

// Run does o against cs and writes its lines to w.
func Run(ctx context.Context, cs kubernetes.Interface, o Op, w io.Writer) error {
	if err := o.Check(); err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	pods := func(ps []Pod, err error) error {
		for i := range ps {
			if werr := enc.Encode(Line{Pod: &ps[i]}); werr != nil {
				return werr
			}
		}
		return err
	}
	switch o.Verb {
	case VerbPods:
		return pods(List(ctx, cs, o.Namespace, o.Selector))
	case VerbDelete:
		return pods(Delete(ctx, cs, o))
	case VerbMembers:
		return pods(Members(ctx, cs, o.Namespace, o.Selector, o.MetricsPort))
	default: // VerbNode
		n, err := NodeState(ctx, cs, o.Name)
		if err != nil {
			return err
		}
		return enc.Encode(Line{Node: &n})
	}
}

// List is the pods matching selector in namespace, by name.
func List(ctx context.Context, cs kubernetes.Interface, namespace, selector string) ([]Pod, error) {
	l, err := cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, fmt.Errorf("list pods %s in namespace %s: %w", selector, namespace, err)
	}
	out := make([]Pod, 0, len(l.Items))
	for i := range l.Items {
		out = append(out, pod(&l.Items[i]))
	}
	slices.SortFunc(out, func(a, b Pod) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func pod(p *corev1.Pod) Pod {
	ready, _ := kube.PodReady(p)
	return Pod{Name: p.Name, UID: string(p.UID), Ready: ready}
}

// Delete deletes the pods matching o.Selector (only o.Name, and only while
// it has o.UID, when given) and returns them. No match is an error: a fault
// that deleted nothing is no fault.
func Delete(ctx context.Context, cs kubernetes.Interface, o Op) ([]Pod, error) {
	ps, err := List(ctx, cs, o.Namespace, o.Selector)
	if err != nil {
		return nil, err
	}
	var out []Pod
	for _, p := range ps {
		if o.Name != "" && p.Name != o.Name {
			continue
		}
		opts := metav1.DeleteOptions{}
		if o.UID != "" {
			uid := types.UID(o.UID)
			opts.Preconditions = &metav1.Preconditions{UID: &uid}
		}
		if err := cs.CoreV1().Pods(o.Namespace).Delete(ctx, p.Name, opts); err != nil {
			return out, fmt.Errorf("delete pod %s/%s: %w", o.Namespace, p.Name, err)
		}
		p.Deleted = true
		out = append(out, p)
	}
	if len(out) == 0 {
		what := "pod matches " + o.Selector
		if o.Name != "" {
			what = "pod " + o.Name + " matches " + o.Selector
		}
		return nil, fmt.Errorf("no %s in namespace %s: nothing deleted (is the lab up, and are the pods named as the pinned charts name them?)",
			what, o.Namespace)
	}
	return out, nil
}

// The etcd metrics a member's leadership is read from: gauges set on every
// change of its raft state (etcd v3.6.12 server/etcdserver/metrics.go:29-40,
// set in etcdserver/raft.go:191-203), served under /metrics on the metrics
// listener (embed/etcd.go:876-878, etcdserver/api/etcdhttp/metrics.go:24).
const (
	metricIsLeader  = "etcd_server_is_leader"
	metricHasLeader = "etcd_server_has_leader"
	metricsPath     = "metrics"
)

// Members is the pods matching selector, each with what its etcd metrics
// say, read through the API server's pod proxy (GET
// pods/NAME:PORT/proxy/metrics): the members serve their metrics in plain
// HTTP inside the management cluster, where nothing in the namespace can
// reach them directly, and asking the members themselves needs no client
// certificate and no exec into their containers. A member whose metrics
// cannot be read says why and counts as having no leader.
func Members(ctx context.Context, cs kubernetes.Interface, namespace, selector string, port int) ([]Pod, error) {
	ps, err := List(ctx, cs, namespace, selector)
	if err != nil {
		return nil, err
	}
	for i := range ps {
		m := Member{}
		b, err := cs.CoreV1().Pods(namespace).ProxyGet("http", ps[i].Name, strconv.Itoa(port), metricsPath, nil).DoRaw(ctx)
		if err == nil {
			m, err = parseMetrics(b)
		}
		if err != nil {
			m = Member{Err: fmt.Sprintf("metrics of %s/%s on port %d: %v", namespace, ps[i].Name, port, err)}
		}
		ps[i].Etcd = &m
	}
	return ps, nil
}

// parseMetrics reads the two gauges from Prometheus' text format.
func parseMetrics(b []byte) (Member, error) {
	var m Member
	seen := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || (f[0] != metricIsLeader && f[0] != metricHasLeader) {
			continue
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return Member{}, fmt.Errorf("%s: value %q: %w", f[0], f[1], err)
		}
		seen[f[0]] = true
		if f[0] == metricIsLeader {
			m.IsLeader = v == 1
		} else {
			m.HasLeader = v == 1
		}
	}
	for _, name := range []string{metricIsLeader, metricHasLeader} {
		if !seen[name] {
			return Member{}, fmt.Errorf("no %s in the member's metrics: not an etcd v3 member?", name)
		}
	}
	return m, sc.Err()
}

// NodeState is the node's Ready condition and its kubelet's last renewal of
// the node's Lease. The kubelet renews Lease kube-node-lease/<node name>
// every quarter of nodeLeaseDurationSeconds (40 s by default: 10 s)
// (k8s.io/kubernetes v1.36.4 pkg/kubelet/kubelet.go:1136-1147 and :238-239,
// pkg/kubelet/apis/config/v1beta1/defaults.go:151-152; the namespace is
// NamespaceNodeLease, k8s.io/api v0.36.3 core/v1/types.go:31-32), so a renewal after a restart says
// the new kubelet runs, which Ready alone cannot: a node stays Ready for
// the controller manager's grace period after its kubelet stops.
func NodeState(ctx context.Context, cs kubernetes.Interface, name string) (Node, error) {
	n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return Node{}, fmt.Errorf("node %s: %w", name, err)
	}
	out := Node{Name: name}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			out.Ready = c.Status == corev1.ConditionTrue
		}
	}
	l, err := cs.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return out, fmt.Errorf("lease %s/%s of node %s: %w", corev1.NamespaceNodeLease, name, name, err)
	}
	if l.Spec.RenewTime != nil {
		out.LeaseRenewed = l.Spec.RenewTime.Time
	}
	return out, nil
}
