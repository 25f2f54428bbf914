package stages

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/internal/kubeconfig"
	"github.com/gpu-lab/gpu-lab/ci/stages/internal/owner"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// managementUp prepares a lab whose cluster and kamaji stages are done.
func managementUp(t *testing.T) (*Env, *fakeDocker, *fakeClusters, *Clients) {
	e, d, _, fc := testEnv(t)
	d.containers[e.controlPlaneContainer()] = runningOn(e.controlPlaneContainer(), "kind", "172.18.0.2")
	mk := kubeconfigFor(t, map[string]string{"kind-gpu-lab": "https://127.0.0.1:40000"}, "kind-gpu-lab")
	if err := e.State.WriteManagementKubeconfig(mk); err != nil {
		t.Fatal(err)
	}
	mc, _ := fc.connect(mk)
	return e, d, fc, mc
}

// adminConf is a Kamaji admin.conf with the real CA of ci/internal/kubeconfig/testdata.
func adminConf(t *testing.T, server string) []byte {
	ca, err := os.ReadFile("../internal/kubeconfig/testdata/ca.crt")
	if err != nil {
		t.Fatal(err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["t"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: "x"}
	cfg.Contexts["t"] = &clientcmdapi.Context{Cluster: "t", AuthInfo: "admin"}
	cfg.CurrentContext = "t"
	b, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTenantsStage(t *testing.T) {
	e, _, fc, mc := managementUp(t)
	dyn := mc.Dynamic.(*dynamicfake.FakeDynamicClient)
	// Kamaji reports Provisioning on the first look, then Ready.
	gets := map[string]int{}
	dyn.PrependReactor("get", "tenantcontrolplanes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		name := a.(k8stesting.GetAction).GetName()
		gets[name]++
		if gets[name] < 2 { // first get is Apply's existence check
			return false, nil, nil
		}
		st := "Provisioning"
		if gets[name] > 2 {
			st = "Ready"
		}
		return true, tcpWith(map[string]any{"kubernetesResources": map[string]any{"version": map[string]any{"status": st}}}), nil
	})
	for _, tn := range e.Lab.TenantNames() {
		_, err := mc.Kube.CoreV1().Secrets(tn).Create(context.Background(), &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "tenant-a-admin-kubeconfig", Namespace: tn},
			Data:       map[string][]byte{"admin.conf": adminConf(t, "https://172.18.0.2:31443")},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	// tcpWith always names tenant-a; both tenants read that secret name in this fake.
	ran := &stepRecorder{}
	e.Steps = ran
	if _, err := (tenantsStage{}).Run(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	ran.didWhatThePlanSays(t, newTenantsRun(e).steps)
	for _, tn := range e.Lab.Tenants {
		u, err := dyn.Tracker().Get(tcpGVR, tn.Name, tn.Name)
		if err != nil {
			t.Fatalf("TCP %s not applied: %v", tn.Name, err)
		}
		addr, _, _ := unstructured.NestedString(u.(*unstructured.Unstructured).Object, "spec", "networkProfile", "address")
		if addr != "172.18.0.2" {
			t.Errorf("TCP %s address = %q, want the management node's IPv4", tn.Name, addr)
		}
		kc, err := os.ReadFile(e.State.Kubeconfig(tn.Name))
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := kubeconfig.Server(kc); s != e.Reach.tenantServer("172.18.0.2", tn.Ports.APIServer) {
			t.Errorf("tenant %s kubeconfig server = %s", tn.Name, s)
		}
	}
	if len(fc.by) != 3 {
		t.Errorf("want management + 2 tenant connections, got %d", len(fc.by))
	}
}

func TestWorkersStageJoinsAndWaits(t *testing.T) {
	e, d, fc, _ := managementUp(t)
	d.images[e.Lab.Versions.WorkerImage()] = true
	tenantClients := map[string]*Clients{}
	for _, tn := range e.Lab.Tenants {
		kc := adminConf(t, e.Reach.tenantServer("172.18.0.2", tn.Ports.APIServer))
		if err := e.State.WriteKubeconfig(tn.Name, kc); err != nil {
			t.Fatal(err)
		}
		c, _ := fc.connect(kc)
		seedKamajiJoinObjects(t, c)
		seedTenantAddons(t, c, e.Lab.NodeName(tn.Name, "worker"))
		tenantClients[tn.Name] = c
	}
	var joins []string
	d.execOut = func(container string, cmd []string) ([]byte, error) {
		switch {
		case len(cmd) > 1 && cmd[0] == "systemctl":
			return []byte("active\n"), nil
		case len(cmd) > 1 && cmd[0] == "cat":
			return []byte(kindnetRaw), nil
		case len(cmd) > 1 && cmd[0] == "kubeadm" && cmd[1] == "join":
			// What the join reads is what was written just before it.
			d.mu.Lock()
			joins = append(joins, container+" "+strings.Join(cmd, " ")+"\n"+string(d.stdin[container]))
			d.mu.Unlock()
			tenant := strings.TrimSuffix(strings.TrimPrefix(container, "gpu-lab-"), "-worker")
			_, err := tenantClients[tenant].Kube.CoreV1().Nodes().Create(context.Background(), &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: container},
				Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
			}, metav1.CreateOptions{})
			return nil, err
		}
		return nil, nil
	}
	ran := &stepRecorder{}
	e.Steps = ran
	msg, err := workersStage{}.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	ran.didWhatThePlanSays(t, newWorkersRun(e).steps)
	if len(joins) != 2 {
		t.Fatalf("joins = %v", joins)
	}
	for _, j := range joins {
		for _, part := range []string{"kubeadm join --config /kind/kubeadm.conf", "apiServerEndpoint: 172.18.0.2:3", "- sha256:359f7f27",
			"value: 172.18.0.9", "- preflight"} {
			if !strings.Contains(j, part) {
				t.Errorf("join %q lacks %q", j, part)
			}
		}
	}
	if !strings.Contains(msg, "gpu-lab-tenant-a-worker") || !strings.Contains(msg, "gpu-lab-tenant-b-worker") {
		t.Errorf("summary = %s", msg)
	}
	// Every worker carries this state dir's owner ID (Down and every later
	// exec check it), and nothing ran swapoff: in a privileged worker it
	// reaches the host's swap devices.
	rec, ok, err := owner.Read(e.State)
	if err != nil || !ok {
		t.Fatalf("owner record: %v, %v", ok, err)
	}
	for _, s := range d.specs {
		if s.Labels[owner.Label] != rec.ID || s.Labels["tenant.clastix.io"] == "" || s.Labels["gpu-lab.dev/lab"] != "gpu-lab" {
			t.Errorf("worker %s labels = %v, want lab, tenant and owner %s", s.Name, s.Labels, rec.ID)
		}
	}
	for _, c := range d.calls {
		if strings.Contains(c, "swapoff") {
			t.Errorf("ran %q", c)
		}
	}
	for name, c := range tenantClients {
		secrets, _ := c.Kube.CoreV1().Secrets("kube-system").List(context.Background(), metav1.ListOptions{})
		if len(secrets.Items) != 1 || secrets.Items[0].Type != corev1.SecretTypeBootstrapToken {
			t.Errorf("tenant %s: bootstrap token secrets = %d", name, len(secrets.Items))
		}
		tracker := c.Dynamic.(*dynamicfake.FakeDynamicClient).Tracker()
		for _, ds := range []string{"kindnet", "kube-proxy"} {
			if _, err := tracker.Get(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}, "kube-system",
				ds); err != nil {
				t.Errorf("tenant %s: DaemonSet %s not applied: %v", name, ds, err)
			}
		}
		if _, err := tracker.Get(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, "kube-system", "kube-proxy"); err != nil {
			t.Errorf("tenant %s: kube-proxy ConfigMap not applied: %v", name, err)
		}
	}
	// Idempotent: everything is there, Check says so and a re-run joins nothing.
	done, _, err := workersStage{}.Check(context.Background(), e)
	if err != nil || !done {
		t.Fatalf("Check after run = %v, %v", done, err)
	}
	joins = nil
	if _, err := (workersStage{}).Run(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	if len(joins) != 0 {
		t.Errorf("second run joined again: %v", joins)
	}
}

func TestRealStagesPlanTheDefaultLab(t *testing.T) {
	e, _, _, _ := testEnv(t)
	var all []string
	r := &Runner{Stages: All(), OnEvent: func(ev Event) { all = append(all, ev.Stage+": "+strings.Join(ev.Lines, "\n")) }}
	if err := r.Plan(e); err != nil {
		t.Fatal(err)
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{
		"kind create cluster", "kind: Cluster",
		"--version 0.0.0+latest", "resources=null", "telemetry.disabled=true",
		"kind: TenantControlPlane", "serviceType: NodePort",
		"docker run --detach --tty --net kind --hostname gpu-lab-tenant-a-worker", "--privileged",
		"kubeadm join --config /kind/kubeadm.conf", "apiServerEndpoint: 172.18.0.2:31443", "token: <new bootstrap token>",
		"name: node-ip", "value: <IPv4 of gpu-lab-tenant-a-worker on kind>", "kubeadm reset -f",
		"until Kamaji has written what kubeadm join reads", "give up after 15m0s",
		"what kind adds for the host, from docker info and the environment: --userns=host",
		"DaemonSet kube-system/konnectivity-agent", "prove the konnectivity tunnel of tenant tenant-b",
		"conntrack.maxPerCore: 0",
		"--version 2.10.0", "label Node(s) gpu-lab-tenant-a-worker gpu=on", "gpu-lab-nvml-mock",
		"ghcr.io/nvidia/nvml-mock:sha-0eeb2ee", "/var/lib/nvml-mock/driver",
		"DaemonSet kube-system/hami-device-plugin ready on 1 worker(s)", "nvidia.com/gpu (gpu-lab-tenant-b-worker=20)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("plan lacks %q", want)
		}
	}
}
