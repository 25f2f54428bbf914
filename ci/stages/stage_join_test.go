package stages

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// workerNodes models what kubeadm leaves in each worker container: a join
// that did not finish leaves files and a running kubelet behind, on top of
// which the next join fails; kubeadm reset -f removes them.
type workerNodes struct {
	mu        sync.Mutex
	leftovers map[string]bool
	// failFirst makes the first join of each worker stop half-way.
	failFirst map[string]bool
	joinCtx   map[string]time.Duration // worker → time left on the join's context
	steps     []string                 // "<worker> <command>" of every kubeadm call
	create    func(tenant, node string) error
}

func (w *workerNodes) exec(ctx context.Context, container string, cmd []string) ([]byte, error) {
	if len(cmd) < 2 || cmd[0] != "kubeadm" {
		return nil, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.steps = append(w.steps, container+" kubeadm "+cmd[1])
	switch cmd[1] {
	case "reset":
		w.leftovers[container] = false
		return nil, nil
	case "join":
		if d, ok := ctx.Deadline(); ok {
			w.joinCtx[container] = time.Until(d)
		}
		if w.leftovers[container] {
			// What kubeadm v1.36.3 reports when a join runs on top of an
			// unfinished one with preflight on.
			return []byte("[ERROR FileAvailable--etc-kubernetes-pki-ca.crt]: /etc/kubernetes/pki/ca.crt already exists\n" +
				"[ERROR Port-10250]: Port 10250 is in use"), errors.New("exit status 1")
		}
		w.leftovers[container] = true
		if w.failFirst[container] {
			delete(w.failFirst, container)
			return []byte("[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap"), errors.New("exit status 1")
		}
		tenant := strings.TrimSuffix(strings.TrimPrefix(container, "gpu-lab-"), "-worker")
		return nil, w.create(tenant, container)
	}
	return nil, nil
}

func joiningEnv(t *testing.T) (*Env, *workerNodes, map[string]*Clients) {
	t.Helper()
	e, d, fc, _ := managementUp(t)
	d.images[e.Lab.Versions.WorkerImage()] = true
	clients := map[string]*Clients{}
	for _, tn := range e.Lab.Tenants {
		kc := adminConf(t, e.Reach.tenantServer("172.18.0.2", tn.Ports.APIServer))
		if err := e.State.WriteKubeconfig(tn.Name, kc); err != nil {
			t.Fatal(err)
		}
		c, _ := fc.connect(kc)
		seedKamajiJoinObjects(t, c)
		seedTenantAddons(t, c, e.Lab.NodeName(tn.Name, "worker"))
		clients[tn.Name] = c
	}
	w := &workerNodes{leftovers: map[string]bool{}, failFirst: map[string]bool{}, joinCtx: map[string]time.Duration{}}
	w.create = func(tenant, node string) error {
		_, err := clients[tenant].Kube.CoreV1().Nodes().Create(context.Background(), &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: node},
			Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
		}, metav1.CreateOptions{})
		return err
	}
	// The fake docker hands execOut no context: keep each exec's context
	// (execCtx runs first, in the same call) for the kubeadm model.
	var ctxOf sync.Map
	d.execCtx = func(ctx context.Context, container string, _ []string) { ctxOf.Store(container, ctx) }
	d.execOut = func(container string, cmd []string) ([]byte, error) {
		switch {
		case len(cmd) > 1 && cmd[0] == "systemctl":
			return []byte("active\n"), nil
		case len(cmd) > 1 && cmd[0] == "cat":
			return []byte(kindnetRaw), nil
		case len(cmd) > 1 && cmd[0] == "kubeadm":
			c, _ := ctxOf.Load(container)
			return w.exec(c.(context.Context), container, cmd)
		}
		return nil, nil
	}
	return e, w, clients
}

// TestWorkerJoinRetriesAfterAHalfJoin: a join stopped half-way (kubeadm
// wrote pki/ca.crt and started the kubelet, the TLS bootstrap did not end)
// leaves state the next join trips on; the next `up` resets first, whatever
// files are there, and joins.
func TestWorkerJoinRetriesAfterAHalfJoin(t *testing.T) {
	e, w, _ := joiningEnv(t)
	half := e.Lab.NodeName("tenant-a", "worker")
	w.failFirst[half] = true

	_, err := workersStage{}.Run(context.Background(), e)
	if err == nil || !strings.Contains(err.Error(), "kubeadm join of "+half) || !strings.Contains(err.Error(), "TLS Bootstrap") {
		t.Fatalf("first up: err = %v, want the half-done join of %s named with kubeadm's last line", err, half)
	}
	if _, err := (workersStage{}).Run(context.Background(), e); err != nil {
		t.Fatalf("second up after a half-done join: %v", err)
	}
	// Every join of every worker came right after a reset of that worker.
	last := map[string]string{}
	for _, s := range w.steps {
		worker, step, _ := strings.Cut(s, " ")
		if step == "kubeadm join" && last[worker] != "kubeadm reset" {
			t.Errorf("%s: join without a reset right before it; steps:\n%s", worker, strings.Join(w.steps, "\n"))
		}
		last[worker] = step
	}
	if n := strings.Count(strings.Join(w.steps, "\n"), half+" kubeadm join"); n != 2 {
		t.Errorf("%s joined %d times, want 2 (the half-done one and the retry)", half, n)
	}
}

// TestWorkerJoinIsNotCutOffBeforeKubeadm: the join's context leaves kubeadm
// all of its own waits (discovery 5 min, kubelet health 4 min, TLS bootstrap
// 5 min in kubeadm v1.36.3); the old cut-off was the 4-minute NodeReady wait.
func TestWorkerJoinIsNotCutOffBeforeKubeadm(t *testing.T) {
	e, w, _ := joiningEnv(t)
	e.Timeouts = DefaultTimeouts()
	if _, err := (workersStage{}).Run(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	kubeadmBudget := kubeadmDiscoveryTimeout + kubeadmKubeletHealthCheckTimeout + kubeadmTLSBootstrapTimeout
	if len(w.joinCtx) != 2 {
		t.Fatalf("joins seen with a deadline: %v", w.joinCtx)
	}
	for worker, left := range w.joinCtx {
		if left <= kubeadmBudget {
			t.Errorf("%s: join cut off after %s, within kubeadm's own %s", worker, left.Round(time.Second), kubeadmBudget)
		}
	}
	// A zero Join timeout (a hand-built Timeouts) still leaves the budget.
	e.Timeouts.Join = 0
	if got := e.joinTimeout(); got <= kubeadmBudget {
		t.Errorf("joinTimeout with Timeouts.Join unset = %s, want above %s", got, kubeadmBudget)
	}
}

func TestWorkersPlanShowsResetThenJoin(t *testing.T) {
	e, _, _, _ := testEnv(t)
	lines, err := workersStage{}.Plan(e)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(lines, "\n")
	node := e.Lab.NodeName("tenant-b", "worker")
	reset := strings.Index(text, "docker exec "+node+" kubeadm reset -f")
	join := strings.Index(text, "docker exec "+node+" kubeadm join")
	if reset < 0 || join < 0 || reset > join {
		t.Errorf("plan: reset at %d, join at %d; want the reset first:\n%s", reset, join, text)
	}
	write := strings.Index(text, "docker exec -i "+node+" sh -c '"+writeJoinConfigScript+"'")
	if write < 0 || write < reset || write > join {
		t.Errorf("plan: %s written at %d (reset %d, join %d); want it between:\n%s", joinConfigPath, write, reset, join, text)
	}
	if !strings.Contains(text, "skipPhases:\n- preflight") || strings.Contains(text, "ignorePreflightErrors") {
		t.Errorf("plan's join does not skip preflight as kind does:\n%s", text)
	}
	await := strings.Index(text,
		"wait in tenant tenant-b until Kamaji has written what kubeadm join reads (ConfigMap kube-public/cluster-info,")
	token := strings.Index(text, "create Secret kube-system/bootstrap-token-<id> in tenant tenant-b")
	if await < 0 || token < 0 || await > token {
		t.Errorf("plan: Kamaji's objects awaited at %d, token at %d; want the wait first:\n%s", await, token, text)
	}
	if !strings.Contains(text, "give up after 15m0s") {
		t.Errorf("plan does not show the join's cut-off:\n%s", text)
	}
}
