package stages

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/internal/nodeimage"
	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
	"github.com/gpu-lab/gpu-lab/ci/stages/internal/owner"
)

// nodeStores simulates each kind node's containerd: what `ctr images ls -q`
// lists (normalized names), filled by `ctr images import` from what the
// fake daemon's save wrote (one archive may hold several images). events is
// the order of imports, stage runs and joins; pulls records any attempt to
// pull inside a node. mu guards them: the workers stage preloads and joins
// workers side by side.
type nodeStores struct {
	mu     sync.Mutex
	d      *fakeDocker
	dump   []byte
	store  map[string][]string
	events []string
	pulls  []string
	// onImport, when set, is called as an import into container starts,
	// outside mu; what it returns, when the import has been recorded.
	onImport func(container string) (done func())
}

func newNodeStores(t *testing.T, d *fakeDocker) *nodeStores {
	dump, err := os.ReadFile("../internal/nodeimage/testdata/containerd-config-dump-kind-node-v2.toml")
	if err != nil {
		t.Fatal(err)
	}
	return &nodeStores{d: d, dump: dump, store: map[string][]string{}}
}

func (n *nodeStores) exec(container string, cmd []string) ([]byte, error) {
	line := strings.Join(cmd, " ")
	if n.onImport != nil && strings.HasPrefix(line, "ctr --namespace=k8s.io images import") {
		defer n.onImport(container)()
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case strings.HasPrefix(line, "ctr --namespace=k8s.io images ls -q"):
		return []byte(strings.Join(n.store[container], "\n")), nil
	case line == strings.Join(nodeimage.ContainerdConfigDumpCommand, " "):
		return n.dump, nil
	case strings.HasPrefix(line, "ctr --namespace=k8s.io images import"):
		n.d.mu.Lock()
		refs := strings.Fields(strings.TrimPrefix(string(n.d.stdin[container]), "archive of "))
		n.d.mu.Unlock()
		// One archive holds every image of an import (nodeimage.Load).
		for _, ref := range refs {
			n.store[container] = append(n.store[container], images.Normalize(ref))
			n.events = append(n.events, "import "+container+" "+ref)
		}
	case strings.Contains(line, " pull"):
		n.pulls = append(n.pulls, container+": "+line)
	}
	return nil, nil
}

// recordingStage stands for a real stage: it only notes when it runs.
type recordingStage struct {
	name string
	n    *nodeStores
}

func (s recordingStage) Name() string                { return s.name }
func (s recordingStage) Plan(*Env) ([]string, error) { return nil, nil }
func (s recordingStage) Check(context.Context, *Env) (bool, string, error) {
	return false, "", nil
}
func (s recordingStage) Run(context.Context, *Env) (string, error) {
	s.n.mu.Lock()
	defer s.n.mu.Unlock()
	s.n.events = append(s.n.events, "run "+s.name)
	return "ok", nil
}

// bundledEnv is the seed lab with every bundled image "loaded" into the fake
// daemon: tags under their names, digest-pinned ones under an ID.
func bundledEnv(t *testing.T) (*Env, *fakeDocker, *nodeStores) {
	e, d, _, _ := testEnv(t)
	return e, d, withBundle(t, e, d)
}

func withBundle(t *testing.T, e *Env, d *fakeDocker) *nodeStores {
	list, err := images.List(e.Lab)
	if err != nil {
		t.Fatal(err)
	}
	loaded := images.Loaded{}
	for i, ref := range images.BundleRefs(list) {
		local := ref
		if strings.Contains(ref, "@") {
			local = "sha256:" + strings.Repeat(string(rune('a'+i%6)), 64)
		}
		loaded[ref] = local
		d.images[local] = true
	}
	d.pullErr = docker.ErrNoRegistry
	e.Preload = &Preload{Images: list, Loaded: loaded}
	n := newNodeStores(t, d)
	d.execOut = n.exec
	return n
}

// ownedWorkersRunning runs every worker of the env's lab, labelled as this
// state dir's (owner ID id), and returns their names in the lab's order.
func ownedWorkersRunning(e *Env, d *fakeDocker, id string) []string {
	var names []string
	for _, tn := range e.Lab.Tenants {
		for _, w := range tn.Workers {
			name := e.Lab.NodeName(tn.Name, w.Name)
			c := runningOn(name, "kind", "172.18.0.9")
			c.Config.Labels = ownedWorkerLabels(e, tn.Name, id)
			d.containers[name] = c
			names = append(names, name)
		}
	}
	return names
}

func indexOf(events []string, ev string) int { return slices.Index(events, ev) }

// ownManagementNode makes the management node the node container of a
// kind cluster this state dir created (as createOwnedKindCluster records
// it) and returns the record, whose ID labels the lab's own workers.
func ownManagementNode(t *testing.T, e *Env, d *fakeDocker) owner.Record {
	t.Helper()
	cp := d.kindNode(e.Lab.Name)
	rec := owner.Record{ID: "00112233445566778899aabbccddeeff", KindCluster: e.Lab.Name,
		KindNodes: map[string]string{e.controlPlaneContainer(): cp.ID}}
	if err := owner.Write(e.State, rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestPreloadImportsEveryImageBeforeItsStage: with a bundle, each stage's
// images are in the containerd of every node that runs them before the
// stage runs, and nothing is pulled — neither by the daemon nor in a node.
func TestPreloadImportsEveryImageBeforeItsStage(t *testing.T) {
	e, d, n := bundledEnv(t)
	// Every node exists, this state dir's (a lab being resumed); fresh
	// workers are the next test.
	workers := ownedWorkersRunning(e, d, ownManagementNode(t, e, d).ID)
	var stages []Stage
	for _, name := range Names {
		stages = append(stages, recordingStage{name: name, n: n})
	}
	if _, err := Preflight(context.Background(), e, ""); err != nil {
		t.Fatalf("preflight with every daemon image in the bundle: %v", err)
	}
	ran := &stepRecorder{}
	e.Steps = ran
	if err := (&Runner{Stages: stages}).Up(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	// Each stage's preload is a step of its own, named as the dry-run says
	// it, so a run's timeline shows where the time went.
	preloads := 0
	for _, name := range Names {
		if say := e.preloadPlan(name, "", true); len(say) > 0 {
			preloads++
			if !slices.Contains(ran.started, steps.Name(say)) {
				t.Errorf("stage %s: no step %q started (started: %q)", name, steps.Name(say), ran.started)
			}
		}
	}
	if preloads < 2 {
		t.Errorf("the bundle preloads before %d stage(s), want the management node's and the workers' at least", preloads)
	}
	checked := 0
	for _, i := range e.Preload.Images {
		// A release's images are its stage's to import, before the
		// release installs (TestKamajiStageImportsEachReleasesImagesBeforeItsInstall).
		if !i.Bundled() || i.Place == images.OnDaemon || i.Release != "" {
			continue
		}
		nodes := workers
		if i.Place == images.Management {
			nodes = []string{e.controlPlaneContainer()}
		}
		run := indexOf(n.events, "run "+i.Stage)
		for _, node := range nodes {
			at := indexOf(n.events, "import "+node+" "+i.Ref)
			if at < 0 || at > run {
				t.Errorf("%s (stage %s) imported into %s at event %d, stage runs at %d:\n%s", i.Ref, i.Stage, node, at, run,
					strings.Join(n.events, "\n"))
			}
			checked++
		}
	}
	if checked < 12 {
		t.Errorf("only %d image/node pairs checked", checked)
	}
	if len(n.pulls) > 0 {
		t.Errorf("pulled inside nodes: %v", n.pulls)
	}
	for _, c := range d.calls {
		if strings.HasPrefix(c, "ensure ") && strings.Contains(c, "@sha256:") {
			t.Errorf("the daemon was asked for a digest reference a loaded image cannot answer to: %s", c)
		}
	}
	// Idempotent: a second run finds every image and imports nothing.
	before := len(n.events)
	if err := (&Runner{Stages: stages}).Up(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	for _, ev := range n.events[before:] {
		if strings.HasPrefix(ev, "import ") {
			t.Errorf("re-imported: %s", ev)
		}
	}
}

// TestPreloadReachesAFreshWorkerBeforeItJoins: the workers stage starts a
// worker, imports the workers-stage images into it, then joins it.
func TestPreloadReachesAFreshWorkerBeforeItJoins(t *testing.T) {
	e, n := bundledTenantsToJoin(t)
	if _, err := (workersStage{}).Run(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	want := e.Preload.preloadFor(stageWorkers, "", images.Worker)
	if len(want) < 2 {
		t.Fatalf("workers-stage worker images = %v, want CoreDNS and the konnectivity agent at least", want)
	}
	for _, tn := range e.Lab.Tenants {
		node := e.Lab.NodeName(tn.Name, "worker")
		join := indexOf(n.events, "join "+node)
		if join < 0 {
			t.Fatalf("%s never joined:\n%s", node, strings.Join(n.events, "\n"))
		}
		for _, ref := range want {
			if at := indexOf(n.events, "import "+node+" "+ref); at < 0 || at > join {
				t.Errorf("%s imported into %s at event %d, the join is event %d", ref, node, at, join)
			}
		}
	}
	if len(n.pulls) > 0 {
		t.Errorf("pulled inside nodes: %v", n.pulls)
	}
}

// bundledTenantsToJoin is the seed lab with a bundle, its tenants up with
// Kamaji's join objects and addons, no worker started yet: each worker's
// boot and join are answered by chainJoin, containerd by the node stores.
func bundledTenantsToJoin(t *testing.T) (*Env, *nodeStores) {
	t.Helper()
	e, d, fc, _ := managementUp(t)
	n := withBundle(t, e, d)
	for _, tn := range e.Lab.Tenants {
		kc := adminConf(t, e.Reach.tenantServer("172.18.0.2", tn.Ports.APIServer))
		if err := e.State.WriteKubeconfig(tn.Name, kc); err != nil {
			t.Fatal(err)
		}
		c, _ := fc.connect(kc)
		name := e.Lab.NodeName(tn.Name, "worker")
		seedKamajiJoinObjects(t, c)
		seedTenantAddons(t, c, name)
		d.execOut = chainJoin(d.execOut, n, name, c)
	}
	return e, n
}

// chainJoin answers the worker's boot and join the way the workers stage
// test does, and hands containerd commands to the node stores.
func chainJoin(prev func(string, []string) ([]byte, error), n *nodeStores, worker string,
	tc *Clients) func(string, []string) ([]byte, error) {
	return func(container string, cmd []string) ([]byte, error) {
		if container != worker {
			if prev != nil {
				return prev(container, cmd)
			}
			return n.exec(container, cmd)
		}
		switch {
		case len(cmd) > 1 && cmd[0] == "systemctl":
			return []byte("active\n"), nil
		case len(cmd) > 1 && cmd[0] == "cat":
			return []byte(kindnetRaw), nil
		case len(cmd) > 1 && cmd[0] == "kubeadm" && cmd[1] == "join":
			n.mu.Lock()
			n.events = append(n.events, "join "+container)
			n.mu.Unlock()
			_, err := tc.Kube.CoreV1().Nodes().Create(context.Background(), &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: container},
				Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
			}, metav1.CreateOptions{})
			return nil, err
		}
		return n.exec(container, cmd)
	}
}

// TestClusterStageStartsTheBundledNodeImageByID: a digest-pinned node image
// loaded from a bundle has no digest on the daemon; kind gets its ID.
func TestClusterStageStartsTheBundledNodeImageByID(t *testing.T) {
	e, d, k, _ := testEnv(t)
	withBundle(t, e, d)
	d.containers[e.controlPlaneContainer()] = runningOn(e.controlPlaneContainer(), "kind", "172.18.0.2")
	k.kubeconfig = kubeconfigFor(t, map[string]string{"kind-gpu-lab": "https://127.0.0.1:40000"}, "kind-gpu-lab")
	if _, err := (clusterStage{}).Run(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	local := e.Preload.Loaded.Local(e.Lab.Versions.KindNodeImage)
	if !strings.HasPrefix(local, "sha256:") || k.created == nil || k.created.Nodes[0].Image != local {
		t.Errorf("kind node image = %+v, want the bundle's ID %s", k.created, local)
	}
}

// TestImageStagesAreStageNames: ci/images names stages by string (it sits
// below this package); they must be the stages' names.
func TestImageStagesAreStageNames(t *testing.T) {
	for _, s := range []string{images.StageCluster, images.StageKamaji, images.StageTenants, images.StageWorkers, images.StageHAMi,
		images.StageGPUs} {
		if !slices.Contains(Names, s) {
			t.Errorf("ci/images stage %q is not a stage", s)
		}
	}
}
