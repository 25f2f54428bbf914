package hamidouble

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/gpus/deviceplugin"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// env is a started double on a fake clientset holding the seed lab's two
// workers, registered by the product registrar, behind an HTTP server.
type env struct {
	t      testing.TB
	ctx    context.Context
	c      *fake.Clientset
	d      *double
	srv    *httptest.Server
	lab    *lab.Lab
	labels map[string]string
	tick   chan time.Time // the registration ticker
}

const (
	nodeA = "worker-a" // one A100 80GB
	nodeB = "worker-b" // two L4 24GB
)

func newEnv(t testing.TB, cfg Config) *env {
	t.Helper()
	e := newUnregisteredEnv(t, cfg)
	if !cfg.RegisterInstantly {
		e.register()
	}
	return e
}

// newUnregisteredEnv is newEnv before the registration ticker first fires.
func newUnregisteredEnv(t testing.TB, cfg Config) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	// The simple clientset: NewClientset's field-managed tracker builds a
	// REST mapper of the whole scheme on every call (client-go v0.36.3
	// testing/fixture.go, NewFieldManagedObjectTracker), two thirds of
	// this package's test CPU; the double applies nothing server-side.
	c := fake.NewSimpleClientset(
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeA}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeB}},
	)
	// The fake clientset does not set spec.nodeName on a Binding; the API
	// server does.
	c.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		ca, ok := a.(k8stesting.CreateAction)
		if !ok || ca.GetSubresource() != "binding" {
			return false, nil, nil
		}
		b := ca.GetObject().(*corev1.Binding)
		pod, err := c.Tracker().Get(corev1.SchemeGroupVersion.WithResource("pods"), b.Namespace, b.Name)
		if err != nil {
			return true, nil, err
		}
		p := pod.(*corev1.Pod).DeepCopy()
		p.Spec.NodeName = b.Target.Name
		return true, b, c.Tracker().Update(corev1.SchemeGroupVersion.WithResource("pods"), p, b.Namespace)
	})
	l := lab.Default()
	for i, n := range []string{nodeA, nodeB} {
		if err := deviceplugin.RegisterNode(ctx, c, l, l.Tenants[i].Name, l.Tenants[i].Workers[0], n); err != nil {
			t.Fatal(err)
		}
	}
	cfg.Client = c
	d := newDouble(cfg)
	tick := make(chan time.Time)
	d.newTicker = func(time.Duration) (<-chan time.Time, func()) { return tick, func() {} }
	if err := d.start(ctx); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d.handler())
	t.Cleanup(srv.Close)
	return &env{t: t, ctx: ctx, c: c, d: d, srv: srv, lab: l, tick: tick}
}

// register fires the registration ticker once and waits for the pass.
func (e *env) register() {
	e.t.Helper()
	before := e.d.reg.passes.Load()
	e.tick <- time.Now()
	waitFor(e.t, "a registration pass", func() bool { return e.d.reg.passes.Load() > before })
}

// uuid is the registered UUID of a seed card.
func (e *env) uuid(node string, index int) string {
	if node == nodeA {
		return gpus.CardUUID(e.lab.Name, "tenant-a", "worker", index)
	}
	return gpus.CardUUID(e.lab.Name, "tenant-b", "worker", index)
}

// gpuPod creates a pod as the webhook would have left it, with annotations.
func (e *env) gpuPod(name string, node string, lim corev1.ResourceList, annotations map[string]string) *corev1.Pod {
	e.t.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name), Annotations: annotations},
		Spec: corev1.PodSpec{SchedulerName: "hami-scheduler", NodeSelector: map[string]string{"kubernetes.io/hostname": node},
			Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Limits: lim}}}},
	}
	p, err := e.c.CoreV1().Pods("ns").Create(e.ctx, p, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	// Bind reads the pod from the informer cache, as HAMi does.
	waitFor(e.t, "the pod informer to see "+name, func() bool {
		_, err := e.d.pods.Pods("ns").Get(name)
		return err == nil
	})
	return p
}

func (e *env) post(path string, in, out any) {
	e.t.Helper()
	b, _ := json.Marshal(in)
	resp, err := http.Post(e.srv.URL+path, "application/json", bytes.NewReader(b))
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("POST %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		e.t.Fatal(err)
	}
}

// filter sends the pod as kube-scheduler does with nodeCacheCapable: names only.
func (e *env) filter(pod *corev1.Pod, nodes ...string) *extenderv1.ExtenderFilterResult {
	e.t.Helper()
	var res extenderv1.ExtenderFilterResult
	e.post("/filter", extenderv1.ExtenderArgs{Pod: pod, NodeNames: &nodes}, &res)
	return &res
}

func (e *env) bind(pod *corev1.Pod, node string) *extenderv1.ExtenderBindingResult {
	e.t.Helper()
	var res extenderv1.ExtenderBindingResult
	e.post("/bind", extenderv1.ExtenderBindingArgs{PodName: pod.Name, PodNamespace: pod.Namespace, PodUID: pod.UID, Node: node}, &res)
	return &res
}

// schedule is one scheduling cycle: Filter, then Bind on the chosen node.
func (e *env) schedule(pod *corev1.Pod, nodes ...string) (string, string) {
	e.t.Helper()
	fr := e.filter(pod, nodes...)
	if fr.Error != "" {
		return "", fr.Error
	}
	if fr.NodeNames == nil || len(*fr.NodeNames) != 1 {
		return "", fmt.Sprint(fr.FailedNodes)
	}
	node := (*fr.NodeNames)[0]
	if br := e.bind(pod, node); br.Error != "" {
		return node, br.Error
	}
	return node, ""
}

func (e *env) pod(name string) *corev1.Pod {
	e.t.Helper()
	p, err := e.c.CoreV1().Pods("ns").Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) lock(node string) (string, bool) {
	n, err := e.c.CoreV1().Nodes().Get(e.ctx, node, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	v, ok := n.Annotations[gpus.AnnoNodeLock]
	return v, ok
}

// waitEvent polls for an event on the pod with the reason and message.
func (e *env) waitEvent(pod, reason, message string) {
	e.t.Helper()
	waitFor(e.t, fmt.Sprintf("event %s %q on %s", reason, message, pod), func() bool {
		evs, _ := e.c.CoreV1().Events("ns").List(e.ctx, metav1.ListOptions{})
		for _, ev := range evs.Items {
			if ev.InvolvedObject.Name == pod && ev.Reason == reason && ev.Message == message && ev.Source.Component == "hami-scheduler" {
				return true
			}
		}
		return false
	})
}

// waitFor polls until cond holds; the deadline bounds a failure, it does not
// assert a timing.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
