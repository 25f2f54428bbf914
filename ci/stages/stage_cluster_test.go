package stages

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	kind "sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/internal/kubeconfig"
	"github.com/gpu-lab/gpu-lab/ci/stages/internal/owner"
)

func TestClusterStageFailsFastWithoutImages(t *testing.T) {
	e, d, k, _ := testEnv(t)
	d.pullErr = errors.New("cannot pull kindest/node: " + docker.ErrNoRegistry.Error())
	d.pullErr = errors.Join(d.pullErr, docker.ErrNoRegistry)
	_, err := clusterStage{}.Run(context.Background(), e)
	if !errors.Is(err, docker.ErrNoRegistry) {
		t.Fatalf("err = %v, want ErrNoRegistry", err)
	}
	if !strings.Contains(err.Error(), "stage cluster: image "+e.Lab.Versions.KindNodeImage) {
		t.Errorf("error does not name the image: %v", err)
	}
	if len(k.calls) != 0 {
		t.Fatalf("kind was called without the node image: %v", k.calls)
	}
}

func TestClusterStageRemoteDaemon(t *testing.T) {
	e, d, k, _ := testEnv(t)
	e.Reach = Reach{Host: "docker"}
	d.images[e.Lab.Versions.KindNodeImage] = true
	d.containers[e.controlPlaneContainer()] = runningOn(e.controlPlaneContainer(), "kind", "172.18.0.2")
	k.kubeconfig = kubeconfigFor(t, map[string]string{"kind-gpu-lab": "https://0.0.0.0:6443"}, "kind-gpu-lab")

	ran := &stepRecorder{}
	e.Steps = ran
	msg, err := clusterStage{}.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	ran.didWhatThePlanSays(t, newClusterRun(e).steps)
	if k.created == nil || k.created.Networking.APIServerAddress != "0.0.0.0" || k.created.Networking.APIServerPort != managementAPIPort {
		t.Fatalf("kind config for a remote daemon = %+v", k.created)
	}
	kc, err := os.ReadFile(e.State.ManagementKubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	rec, ok, err := owner.Read(e.State)
	cp := d.containers[e.controlPlaneContainer()]
	if err != nil || !ok || rec.KindCluster != "gpu-lab" || rec.KindNodes[e.controlPlaneContainer()] != cp.ID || cp.ID == "" {
		t.Errorf("owner record = %+v (%v, %v), want the control-plane container's ID %q", rec, ok, err, cp.ID)
	}
	if got := k.created.Nodes[0].Labels[owner.Label]; got != rec.ID {
		t.Errorf("kind node label %s = %q, want the owner ID %q", owner.Label, got, rec.ID)
	}
	if s, _ := kubeconfig.Server(kc); s != "https://docker:6443" {
		t.Errorf("management kubeconfig server = %s, want https://docker:6443", s)
	}
	if !strings.Contains(msg, "172.18.0.2") || strings.Contains(msg, "fc00") {
		t.Errorf("summary should name the IPv4 management address only: %s", msg)
	}
	if e.State.Backend() == "" {
		t.Error("backend not recorded")
	}
	if _, err := e.State.ReadLab(); err != nil {
		t.Errorf("lab.yaml not recorded: %v", err)
	}
	// A second Run reuses the cluster.
	k.calls = nil
	if msg, err := (clusterStage{}).Run(context.Background(), e); err != nil || !strings.Contains(msg, "reused") {
		t.Fatalf("second run = %q, %v", msg, err)
	}
	if len(k.calls) != 0 {
		t.Errorf("second run called kind: %v", k.calls)
	}
}

func TestDownRemovesEverythingOnce(t *testing.T) {
	ctx := context.Background()
	e, d, k, _ := testEnv(t)
	if err := e.createOwnedKindCluster(ctx, &kind.Cluster{Name: e.Lab.Name, Nodes: []kind.Node{{Role: kind.ControlPlaneRole}}}); err != nil {
		t.Fatal(err)
	}
	rec, ok, err := owner.Read(e.State)
	if err != nil || !ok {
		t.Fatalf("owner record after create: %+v, %v, %v", rec, ok, err)
	}
	if _, err := d.RunContainer(ctx, docker.RunSpec{Name: "gpu-lab-tenant-a-worker",
		Labels: ownedWorkerLabels(e, "tenant-a", rec.ID)}); err != nil {
		t.Fatal(err)
	}
	// Another checkout's worker of a lab with the same name: lab label, other owner.
	twin := runningOn("gpu-lab-tenant-b-worker", "kind", "172.18.0.4")
	twin.Config.Labels = map[string]string{"gpu-lab.dev/lab": "gpu-lab", "tenant.clastix.io": "tenant-b",
		owner.Label: "0123456789abcdef0123456789abcdef"}
	d.containers["gpu-lab-tenant-b-worker"] = twin
	d.containers["unrelated"] = runningOn("unrelated", "bridge", "172.17.0.2")
	if err := e.State.WriteKubeconfig("tenant-a", []byte("x")); err != nil {
		t.Fatal(err)
	}
	removed, err := Down(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	tenantA := e.State.Kubeconfig("tenant-a")
	if strings.Join(removed, ",") != "container gpu-lab-tenant-a-worker,kind cluster gpu-lab,"+tenantA+","+filepath.Dir(tenantA) {
		t.Errorf("removed = %v", removed)
	}
	if !k.deleted {
		t.Error("kind delete not called for the state dir's own cluster")
	}
	for _, n := range []string{"unrelated", "gpu-lab-tenant-b-worker"} {
		if _, ok := d.containers[n]; !ok {
			t.Errorf("down removed container %s, which this state dir did not start", n)
		}
	}
	if _, err := os.Stat(e.State.Kubeconfig("tenant-a")); !os.IsNotExist(err) {
		t.Error("tenant kubeconfig left behind")
	}
	removed, err = Down(ctx, e)
	if err != nil || len(removed) != 0 {
		t.Errorf("second down = %v, %v; want a no-op", removed, err)
	}
}

// TestClusterStagePublishesOnTheAddressDockerHostGives: a daemon named by
// its address gets the management API server and every tenant NodePort on
// that address only; named by host name (the Dagger DinD service), on all
// of the host's addresses.
func TestClusterStagePublishesOnTheAddressDockerHostGives(t *testing.T) {
	for _, tc := range []struct{ dockerHost, listen string }{
		{"tcp://10.0.0.5:2376", "10.0.0.5"},
		{"ssh://me@192.168.7.20", "192.168.7.20"},
		{"tcp://docker:2375", "0.0.0.0"},
	} {
		t.Run(tc.dockerHost, func(t *testing.T) {
			e, d, k, _ := testEnv(t)
			r, err := ReachFor(tc.dockerHost)
			if err != nil {
				t.Fatal(err)
			}
			e.Reach = r
			d.images[e.Lab.Versions.KindNodeImage] = true
			k.kubeconfig = kubeconfigFor(t, map[string]string{"kind-gpu-lab": "https://" + tc.listen + ":6443"}, "kind-gpu-lab")
			if _, err := (clusterStage{}).Run(context.Background(), e); err != nil {
				t.Fatal(err)
			}
			if got := k.created.Networking.APIServerAddress; got != tc.listen {
				t.Errorf("apiServerAddress = %q, want %q", got, tc.listen)
			}
			pm := k.created.Nodes[0].ExtraPortMappings
			if len(pm) != 2*len(e.Lab.Tenants) {
				t.Fatalf("port mappings = %+v, want the API server and konnectivity NodePorts of every tenant", pm)
			}
			for _, m := range pm {
				if m.ListenAddress != tc.listen {
					t.Errorf("NodePort %d published on %q, want %q", m.HostPort, m.ListenAddress, tc.listen)
				}
			}
		})
	}
}
