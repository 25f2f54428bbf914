package stages

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/docker"
)

func TestClusterStageFailsFastWithoutImages(t *testing.T) {
	e, d, k, _ := testEnv(t)
	d.pullErr = errors.New("cannot pull kindest/node: " + docker.ErrNoRegistry.Error())
	d.pullErr = errors.Join(d.pullErr, docker.ErrNoRegistry)
	_, err := ClusterStage{}.Run(context.Background(), e)
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
	d.containers[e.ControlPlaneContainer()] = runningOn(e.ControlPlaneContainer(), "kind", "172.18.0.2")
	k.kubeconfig = kubeconfig(t, map[string]string{"kind-gpu-lab": "https://0.0.0.0:6443"}, "kind-gpu-lab")

	msg, err := ClusterStage{}.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	if k.created == nil || k.created.Networking.APIServerAddress != "0.0.0.0" || k.created.Networking.APIServerPort != ManagementAPIPort {
		t.Fatalf("kind config for a remote daemon = %+v", k.created)
	}
	kc, err := os.ReadFile(e.State.ManagementKubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := KubeconfigServer(kc); s != "https://docker:6443" {
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
	if msg, err := (ClusterStage{}).Run(context.Background(), e); err != nil || !strings.Contains(msg, "reused") {
		t.Fatalf("second run = %q, %v", msg, err)
	}
	if len(k.calls) != 0 {
		t.Errorf("second run called kind: %v", k.calls)
	}
}

func TestDownRemovesEverythingOnce(t *testing.T) {
	e, d, k, _ := testEnv(t)
	k.exists = true
	w := runningOn("gpu-lab-tenant-a-worker", "kind", "172.18.0.3")
	w.Config.Labels = map[string]string{"gpu-lab.dev/lab": "gpu-lab"}
	d.containers[w.Name[1:]] = w
	other := runningOn("unrelated", "bridge", "172.17.0.2")
	d.containers["unrelated"] = other
	if err := e.State.WriteKubeconfig("tenant-a", []byte("x")); err != nil {
		t.Fatal(err)
	}
	removed, err := Down(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(removed, ",") != "container gpu-lab-tenant-a-worker,kind cluster gpu-lab,"+e.State.Kubeconfig("tenant-a")+","+filepath.Dir(e.State.Kubeconfig("tenant-a")) {
		t.Errorf("removed = %v", removed)
	}
	if _, ok := d.containers["unrelated"]; !ok {
		t.Error("down removed a container that is not the lab's")
	}
	if _, err := os.Stat(e.State.Kubeconfig("tenant-a")); !os.IsNotExist(err) {
		t.Error("tenant kubeconfig left behind")
	}
	removed, err = Down(context.Background(), e)
	if err != nil || len(removed) != 0 {
		t.Errorf("second down = %v, %v; want a no-op", removed, err)
	}
}
