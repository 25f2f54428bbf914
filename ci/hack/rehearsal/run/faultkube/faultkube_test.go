package faultkube

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	restclient "k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
)

func testPod(ns, name, uid string, labels map[string]string, ready bool, deleting bool) *corev1.Pod {
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(uid), Labels: labels},
		Status:     corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}},
	}
	if deleting {
		now := metav1.Now()
		p.DeletionTimestamp = &now
	}
	return p
}

var tcp = map[string]string{"kamaji.clastix.io/name": "tenant-a", "kamaji.clastix.io/component": "deployment"}

// delete deletes exactly the selected pods (and, with a name and uid, only
// that pod while it has that uid), says which, and fails when nothing
// matched; pods lists them with Ready false for a terminating pod.
func TestDeleteAndList(t *testing.T) {
	cs := fake.NewClientset(
		testPod("tenant-a", "tenant-a-7d9-x", "u1", tcp, true, false),
		testPod("tenant-a", "tenant-a-7d9-y", "u2", tcp, true, true),
		testPod("tenant-a", "other", "u3", map[string]string{"app": "x"}, true, false),
		testPod("tenant-b", "tenant-b-1", "u4",
			map[string]string{"kamaji.clastix.io/name": "tenant-b", "kamaji.clastix.io/component": "deployment"}, true, false),
	)
	sel := "kamaji.clastix.io/name=tenant-a,kamaji.clastix.io/component=deployment"
	var out bytes.Buffer
	if err := Run(context.Background(), cs, Op{Verb: VerbPods, Namespace: "tenant-a", Selector: sel}, &out); err != nil {
		t.Fatal(err)
	}
	var got []Pod
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		line, ok := Decode(l)
		if !ok || line.Pod == nil {
			t.Fatalf("line %q does not decode to a pod", l)
		}
		got = append(got, *line.Pod)
	}
	want := []Pod{{Name: "tenant-a-7d9-x", UID: "u1", Ready: true}, {Name: "tenant-a-7d9-y", UID: "u2", Ready: false}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("pods %+v, want %+v", got, want)
	}

	cs.ClearActions()
	deleted, err := Delete(context.Background(), cs,
		Op{Verb: VerbDelete, Namespace: "tenant-a", Selector: sel, Name: "tenant-a-7d9-x", UID: "u1"})
	if err != nil || len(deleted) != 1 || deleted[0].Name != "tenant-a-7d9-x" || !deleted[0].Deleted {
		t.Fatalf("delete by name: %+v, %v", deleted, err)
	}
	var del []clienttesting.DeleteActionImpl
	for _, a := range cs.Actions() {
		if d, ok := a.(clienttesting.DeleteActionImpl); ok {
			del = append(del, d)
		}
	}
	if len(del) != 1 || del[0].Name != "tenant-a-7d9-x" || del[0].DeleteOptions.Preconditions == nil ||
		*del[0].DeleteOptions.Preconditions.UID != "u1" {
		t.Errorf("delete actions %+v: want one, of tenant-a-7d9-x with uid precondition u1", del)
	}
	if deleted, err := Delete(context.Background(), cs,
		Op{Verb: VerbDelete, Namespace: "tenant-a", Selector: sel}); err != nil || len(deleted) != 1 || deleted[0].Name != "tenant-a-7d9-y" {
		t.Errorf("delete by selector: %+v, %v; want the one pod left", deleted, err)
	}
	if _, err := Delete(context.Background(), cs, Op{Verb: VerbDelete, Namespace: "tenant-a", Selector: sel}); err == nil ||
		!strings.Contains(err.Error(), "nothing deleted") {
		t.Errorf("delete with no match: %v, want nothing deleted", err)
	}
	if _, err := cs.CoreV1().Pods("tenant-b").Get(context.Background(), "tenant-b-1", metav1.GetOptions{}); err != nil {
		t.Errorf("another tenant's pod was touched: %v", err)
	}
}

type raw struct {
	b   []byte
	err error
}

func (r raw) DoRaw(context.Context) ([]byte, error)         { return r.b, r.err }
func (r raw) Stream(context.Context) (io.ReadCloser, error) { return nil, errors.New("not streamed") }

// Each member's leadership is read from its own metrics through the pod
// proxy; a member that cannot be read says why and has no leader.
func TestMembers(t *testing.T) {
	etcd := map[string]string{"app.kubernetes.io/name": "kamaji-etcd", "app.kubernetes.io/instance": "kamaji"}
	cs := fake.NewClientset(
		testPod("kamaji-system", "kamaji-etcd-0", "e0", etcd, true, false),
		testPod("kamaji-system", "kamaji-etcd-1", "e1", etcd, true, false),
		testPod("kamaji-system", "kamaji-etcd-2", "e2", etcd, false, false),
	)
	// Members 0 and 1 answer with what real members said (testdata's
	// README says how it was recorded).
	metrics := map[string]raw{
		"kamaji-etcd-0": {b: recordedMetrics(t, "kamaji-etcd-0")},
		"kamaji-etcd-1": {b: recordedMetrics(t, "kamaji-etcd-1")},
		"kamaji-etcd-2": {err: errors.New("connection refused")},
	}
	var asked []string
	cs.PrependProxyReactor("pods", func(a clienttesting.Action) (bool, restclient.ResponseWrapper, error) {
		p := a.(clienttesting.ProxyGetAction)
		asked = append(asked, p.GetScheme()+" "+p.GetName()+":"+p.GetPort()+" "+p.GetPath())
		return true, metrics[p.GetName()], nil
	})
	ms, err := Members(context.Background(), cs, "kamaji-system", "app.kubernetes.io/name=kamaji-etcd,app.kubernetes.io/instance=kamaji", 2381)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 3 {
		t.Fatalf("members %+v", ms)
	}
	if m := ms[0].Etcd; m.IsLeader || !m.HasLeader || m.Err != "" {
		t.Errorf("kamaji-etcd-0: %+v, want a follower with a leader", m)
	}
	if m := ms[1].Etcd; !m.IsLeader || !m.HasLeader {
		t.Errorf("kamaji-etcd-1: %+v, want the leader", m)
	}
	if m := ms[2].Etcd; m.HasLeader || !strings.Contains(m.Err, "kamaji-system/kamaji-etcd-2 on port 2381: connection refused") {
		t.Errorf("kamaji-etcd-2: %+v, want why it could not be read", m)
	}
	if want := "http kamaji-etcd-0:2381 metrics"; len(asked) != 3 || asked[0] != want {
		t.Errorf("proxy requests %q, want the first %q", asked, want)
	}
	if _, err := parseMetrics([]byte("etcd_server_has_leader 1\n")); err == nil {
		t.Error("metrics without etcd_server_is_leader were accepted")
	}
}

// recordedMetrics is one kamaji-etcd member's /metrics as the real lab
// served it.
func recordedMetrics(t *testing.T, member string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "etcd-v3.6.12-metrics", member+".metrics.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A node's Ready and its kubelet's last lease renewal.
func TestNodeState(t *testing.T) {
	renewed := time.Date(2026, 12, 2, 15, 3, 0, 0, time.UTC)
	cs := fake.NewClientset(
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "gpu-lab-tenant-a-worker"},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}},
		&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-node-lease", Name: "gpu-lab-tenant-a-worker"},
			Spec: coordinationv1.LeaseSpec{RenewTime: &metav1.MicroTime{Time: renewed}}},
	)
	var out bytes.Buffer
	if err := Run(context.Background(), cs, Op{Verb: VerbNode, Name: "gpu-lab-tenant-a-worker"}, &out); err != nil {
		t.Fatal(err)
	}
	l, ok := Decode(strings.TrimSpace(out.String()))
	if !ok || l.Node == nil || !l.Node.Ready || !l.Node.LeaseRenewed.Equal(renewed) {
		t.Errorf("node line %q decodes to %+v", out.String(), l.Node)
	}
	if _, err := NodeState(context.Background(), fake.NewClientset(), "gone"); err == nil {
		t.Error("a missing node was reported")
	}
}

// Every verb says what it lacks; output that is not the command's JSON is
// not taken for a line.
func TestOpCheckAndDecode(t *testing.T) {
	for _, tc := range []struct {
		op   Op
		want string
	}{
		{Op{Verb: "reboot"}, "unknown verb \"reboot\", want one of pods, delete, etcd-members, node"},
		{Op{Verb: VerbPods, Selector: "a=b"}, "needs --namespace"},
		{Op{Verb: VerbDelete, Namespace: "n"}, "needs --selector"},
		{Op{Verb: VerbMembers, Namespace: "n", Selector: "a=b"}, "needs --metrics-port"},
		{Op{Verb: VerbNode}, "needs --name"},
		{Op{Verb: VerbNode, Name: "n"}, ""},
	} {
		err := tc.op.Check()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.op, err, tc.want)
		}
	}
	for _, s := range []string{"", "nsenter: reassociate to namespace", "{}", `{"other":1}`, "{broken"} {
		if _, ok := Decode(s); ok {
			t.Errorf("Decode(%q) took it for a line", s)
		}
	}
}
