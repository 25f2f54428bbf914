package stages

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/docker"
)

// failureBound is how long a test below lets the stage run before it gives
// up: only a stage that does one step after another ever reaches it (its
// first step would wait for steps that never start). It bounds a failure;
// nothing waits it out when the stage runs side by side.
const failureBound = 30 * time.Second

// barrier lets its n callers through once all n have arrived; a caller
// whose context ends first gets the context's error. A caller whose context
// has already ended does not count as arrived: seen lists those that were
// under way together.
type barrier struct {
	n       int
	mu      sync.Mutex
	arrived []string
	all     chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: n, all: make(chan struct{})} }

func (b *barrier) wait(ctx context.Context, who string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	if !slices.Contains(b.arrived, who) {
		b.arrived = append(b.arrived, who)
		if len(b.arrived) == b.n {
			close(b.all)
		}
	}
	b.mu.Unlock()
	select {
	case <-b.all:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b *barrier) seen() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.arrived)
}

// twoByTwo is the seed lab with a second worker in each tenant, ready to
// join: tenants up, Kamaji's join objects and addons in place. join
// answers every `kubeadm join`, with the exec's context; the workers'
// boot and kindnet manifest are answered here.
type twoByTwo struct {
	e        *Env
	d        *fakeDocker
	clients  map[string]*Clients // tenant → its clients
	tenantOf map[string]string   // worker → its tenant
	nodes    []string            // every worker, in the lab's order
	boot     func(ctx context.Context, worker string) error
	join     func(ctx context.Context, worker string) ([]byte, error)
}

func newTwoByTwo(t *testing.T) *twoByTwo {
	t.Helper()
	e, d, fc, _ := managementUp(t)
	d.images[e.Lab.Versions.WorkerImage()] = true
	l := &twoByTwo{e: e, d: d, clients: map[string]*Clients{}, tenantOf: map[string]string{}}
	for i := range e.Lab.Tenants {
		tn := &e.Lab.Tenants[i]
		second := tn.Workers[0]
		second.Name = "worker2"
		tn.Workers = append(tn.Workers, second)
		kc := adminConf(t, e.Reach.tenantServer("172.18.0.2", tn.Ports.APIServer))
		if err := e.State.WriteKubeconfig(tn.Name, kc); err != nil {
			t.Fatal(err)
		}
		c, _ := fc.connect(kc)
		seedKamajiJoinObjects(t, c)
		var nodes []string
		for _, w := range tn.Workers {
			n := e.Lab.NodeName(tn.Name, w.Name)
			nodes = append(nodes, n)
			l.tenantOf[n] = tn.Name
		}
		seedTenantAddons(t, c, nodes...)
		l.clients[tn.Name] = c
		l.nodes = append(l.nodes, nodes...)
	}
	l.boot = func(context.Context, string) error { return nil }
	d.execWith = func(ctx context.Context, container string, cmd []string) ([]byte, error) {
		switch {
		case len(cmd) > 1 && cmd[0] == "systemctl":
			if err := l.boot(ctx, container); err != nil {
				return nil, err
			}
			return []byte("active\n"), nil
		case len(cmd) > 1 && cmd[0] == "cat":
			return []byte(kindnetRaw), nil
		case len(cmd) > 1 && cmd[0] == "kubeadm" && cmd[1] == "join":
			return l.join(ctx, container)
		}
		return nil, nil
	}
	return l
}

// register is what a join that succeeds leaves: the worker's Node, Ready.
func (l *twoByTwo) register(ctx context.Context, worker string) error {
	_, err := l.clients[l.tenantOf[worker]].Kube.CoreV1().Nodes().Create(ctx, &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: worker},
		Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}, metav1.CreateOptions{})
	return err
}

// TestWorkersRunTenantsAndJoinsSideBySide: every worker of both tenants
// is booting at the same time, and every join is running at the same
// time: each boot and each join waits until all four are under way. A
// stage that starts or joins one worker, or one tenant, at a time waits
// for the others forever, and fails at failureBound. The summary lists the
// Nodes in the lab's order.
func TestWorkersRunTenantsAndJoinsSideBySide(t *testing.T) {
	l := newTwoByTwo(t)
	boots, joins := newBarrier(len(l.nodes)), newBarrier(len(l.nodes))
	l.boot = func(ctx context.Context, worker string) error { return boots.wait(ctx, worker) }
	l.join = func(ctx context.Context, worker string) ([]byte, error) {
		if err := joins.wait(ctx, worker); err != nil {
			return []byte("the other joins never started"), err
		}
		return nil, l.register(ctx, worker)
	}
	ctx, cancel := context.WithTimeout(context.Background(), failureBound)
	defer cancel()
	msg, err := workersStage{}.Run(ctx, l.e)
	if err != nil {
		t.Fatalf("workers did not run side by side: booting together %q, joining together %q, of %q; Run: %v", boots.seen(), joins.seen(),
			l.nodes, err)
	}
	want := "joined, Ready and reached through their tenant's konnectivity tunnel: " + strings.Join(l.nodes, ", ")
	if msg != want {
		t.Errorf("summary = %q\nwant      %q (the lab's order)", msg, want)
	}
	if got := joins.seen(); len(got) != len(l.nodes) {
		t.Errorf("joins = %q, want one per worker of %q", got, l.nodes)
	}
}

// TestWorkersStopEveryTenantWhenOneJoinFails: while all four joins run,
// tenant-a's second worker fails its join. The stage returns that failure,
// naming the join, the worker and kubeadm's last line (not a sibling's
// cancellation), and returns only once every other join has seen its
// context cancelled and returned; none of them went on to a Node.
func TestWorkersStopEveryTenantWhenOneJoinFails(t *testing.T) {
	l := newTwoByTwo(t)
	bad := l.e.Lab.NodeName("tenant-a", "worker2")
	joins := newBarrier(len(l.nodes))
	ctx, cancel := context.WithTimeout(context.Background(), failureBound)
	defer cancel()
	var (
		mu        sync.Mutex
		running   int
		cancelled []string
	)
	l.join = func(jctx context.Context, worker string) ([]byte, error) {
		mu.Lock()
		running++
		mu.Unlock()
		defer func() { mu.Lock(); running--; mu.Unlock() }()
		if err := joins.wait(jctx, worker); err != nil {
			return []byte("the other joins never started"), err
		}
		if worker == bad {
			return []byte("[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap"), errors.New("exit status 1")
		}
		<-jctx.Done() // a join that would go on: only the stage can end it
		if ctx.Err() == nil {
			mu.Lock()
			cancelled = append(cancelled, worker)
			mu.Unlock()
		}
		return nil, jctx.Err()
	}
	_, err := workersStage{}.Run(ctx, l.e)
	mu.Lock()
	stillRunning, stopped := running, slices.Clone(cancelled)
	mu.Unlock()
	if ctx.Err() != nil {
		t.Fatalf("the joins did not run side by side (joining together %q of %q): the stage ran into the test's bound; Run: %v", joins.seen(),
			l.nodes, err)
	}
	var se *Error
	if !errors.As(err, &se) || se.Stage != stageWorkers || se.Object != "kubeadm join of "+bad+" to tenant tenant-a" ||
		!strings.Contains(se.Condition, "TLS Bootstrap") {
		t.Fatalf("err = %v, want stage %s naming the kubeadm join of %s with kubeadm's last line", err, stageWorkers, bad)
	}
	if errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "context canceled") {
		t.Errorf("err = %v, want the failed join alone, not a cancelled sibling's error", err)
	}
	if stillRunning != 0 {
		t.Errorf("%d join(s) still running when Run returned", stillRunning)
	}
	slices.Sort(stopped)
	var others []string
	for _, n := range l.nodes {
		if n != bad {
			others = append(others, n)
		}
	}
	slices.Sort(others)
	if !slices.Equal(stopped, others) {
		t.Errorf("joins cancelled by the stage = %q, want every other worker's %q", stopped, others)
	}
	for tenant, c := range l.clients {
		nodes, err := c.Kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
		if err != nil || len(nodes.Items) != 0 {
			t.Errorf("tenant %s: Nodes after the failure = %d (%v), want none", tenant, len(nodes.Items), err)
		}
	}
}

// TestWorkerPreloadWaitsForItsTurn: a worker imports the bundle only with
// one of the preloadsAtOnce slots, shared by every tenant. With every slot
// taken it imports nothing and gives up when the stage is cancelled; with
// one free it imports and gives the slot back.
func TestWorkerPreloadWaitsForItsTurn(t *testing.T) {
	e, d, _, _ := managementUp(t)
	n := withBundle(t, e, d)
	ownManagementNode(t, e, d)
	tn := e.Lab.Tenants[0]
	node := e.Lab.NodeName(tn.Name, tn.Workers[0].Name)
	d.execOut = chainJoin(nil, n, node, nil)
	owner, err := e.ensureOwner()
	if err != nil {
		t.Fatal(err)
	}
	run := newWorkersRun(e)
	r := &tenantWorkers{run: run, t: tn}
	if err := startWorker(context.Background(), e, owner.ID, tn.Name, node, e.Lab.Versions.WorkerImage(), docker.KindNodeHost{}); err != nil {
		t.Fatal(err)
	}
	imports := func() []string {
		n.mu.Lock()
		defer n.mu.Unlock()
		var out []string
		for _, ev := range n.events {
			if strings.HasPrefix(ev, "import "+node+" ") {
				out = append(out, ev)
			}
		}
		return out
	}
	for range preloadsAtOnce {
		run.preloads <- struct{}{} // every slot held by other workers
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = r.preload(ctx, stageWorkers, node)
	if err == nil || !strings.Contains(err.Error(), "worker "+node) || !errors.Is(err, context.Canceled) {
		t.Errorf("preload with every slot taken = %v, want the cancellation naming worker %s", err, node)
	}
	if got := imports(); len(got) != 0 {
		t.Errorf("imported without a slot: %q", got)
	}

	<-run.preloads // one slot free
	if err := r.preload(context.Background(), stageWorkers, node); err != nil {
		t.Fatal(err)
	}
	if got := imports(); len(got) == 0 {
		t.Errorf("no image imported into %s with a slot free", node)
	}
	if got := len(run.preloads); got != preloadsAtOnce-1 {
		t.Errorf("slots held after the import = %d, want %d (its own given back)", got, preloadsAtOnce-1)
	}
}

// TestWorkersPlanSaysSideBySide: --dry-run tells that the tenants, and a
// tenant's starts and joins, run side by side, and the bound on imports.
func TestWorkersPlanSaysSideBySide(t *testing.T) {
	e, d, _, _ := testEnv(t)
	lines, err := workersStage{}.Plan(e)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(lines, "\n")
	node := e.Lab.NodeName("tenant-a", "worker")
	for _, want := range []struct{ line, before string }{
		{"the tenants below run side by side; the first failure stops the others", "tenant tenant-a: start its workers side by side"},
		{"tenant tenant-a: start its workers side by side", "docker run --detach --tty --net kind --hostname " + node},
		{"tenant tenant-a: join its workers side by side", "docker exec " + node + " kubeadm reset -f"},
	} {
		at, next := strings.Index(text, want.line), strings.Index(text, want.before)
		if at < 0 || next < 0 || at > next {
			t.Errorf("plan: %q at %d, want it before %q (at %d):\n%s", want.line, at, want.before, next, text)
		}
	}
	if strings.Contains(text, "import the bundle's images") {
		t.Errorf("plan without a bundle imports images:\n%s", text)
	}
	withBundle(t, e, d)
	lines, err = workersStage{}.Plan(e)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("at most %d workers of the lab at once", preloadsAtOnce); !strings.Contains(strings.Join(lines, "\n"), want) {
		t.Errorf("plan with a bundle lacks %q", want)
	}
}
