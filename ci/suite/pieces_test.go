package suite

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/results"
)

func registeredNode(name string, devs []gpus.DeviceInfo) corev1.Node {
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{gpus.AnnoRegister: gpus.EncodeRegister(devs)}}}
}

func TestMatchWorkers(t *testing.T) {
	l := lab.Default()
	wa := l.Tenants[0].Workers[0]
	byUUID := registeredNode("some-name", gpus.Devices(l, "tenant-a", wa))
	foreign := registeredNode("gpu-lab-tenant-b-worker", gpus.Devices(l, "tenant-b", l.Tenants[1].Workers[0]))
	plain := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "gpu-lab-tenant-a-worker"}}
	tests := []struct {
		name      string
		nodes     []corev1.Node
		wantNode  string
		wantExtra string
		wantErr   string
	}{
		{"by card UUIDs", []corev1.Node{byUUID}, "some-name", "", ""},
		{"by gpu-lab node name", []corev1.Node{plain}, "gpu-lab-tenant-a-worker", "", ""},
		{"another tenant's node is extra", []corev1.Node{byUUID, foreign}, "some-name", "gpu-lab-tenant-b-worker", ""},
		{"only another tenant's node, by elimination", []corev1.Node{foreign}, "gpu-lab-tenant-b-worker", "", ""},
		{"nothing", nil, "", "", "tenant tenant-a: no node for spec worker(s) worker"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, extra, err := matchWorkers(l, "tenant-a", tt.nodes)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err != nil || len(m) != 1 || m[0].Node.Name != tt.wantNode || strings.Join(extra, ",") != tt.wantExtra {
				t.Fatalf("got %v extra %v err %v", m, extra, err)
			}
		})
	}
}

func TestBuildState(t *testing.T) {
	l := lab.Default()
	devs := gpus.Devices(l, "tenant-a", l.Tenants[0].Workers[0])
	node := registeredNode("gpu-lab-tenant-a-worker", devs)
	pod := func(name, alloc string, phase corev1.PodPhase) corev1.Pod {
		return corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{labelCase: "TC-03"},
				Annotations: map[string]string{gpus.AnnoVGPUNode: node.Name, gpus.AnnoDevicesAllocated: alloc}},
			Status: corev1.PodStatus{Phase: phase},
		}
	}
	a := devs[0].ID + ",NVIDIA,20000,30:;"
	st := buildState(results.TenantState{Name: "tenant-a"}, []corev1.Node{node}, []corev1.Pod{
		pod("p1", a, corev1.PodRunning), pod("p2", a, corev1.PodPending), pod("done", a, corev1.PodSucceeded),
		{ObjectMeta: metav1.ObjectMeta{Name: "cpu-only"}},
	}, nil)
	if len(st.Nodes) != 1 || len(st.Nodes[0].Cards) != 1 {
		t.Fatalf("state = %+v", st)
	}
	c := st.Nodes[0].Cards[0]
	if c.MemoryMB != 81920 || c.Cores != 100 || len(c.Holders) != 2 || c.Holders[0].Pod != "p1" || c.Holders[1].Phase != "Pending" ||
		c.Holders[0].Case != "TC-03" || c.Holders[0].MemoryMB != 20000 {
		t.Errorf("card = %+v", c)
	}
}

func TestCrossConfig(t *testing.T) {
	a := &rest.Config{Host: "https://a", TLSClientConfig: rest.TLSClientConfig{CAData: []byte("CA-A"), CertData: []byte("CERT-A"),
		KeyData: []byte("KEY-A")}}
	b := &rest.Config{Host: "https://b", BearerToken: "tok-b", TLSClientConfig: rest.TLSClientConfig{CAData: []byte("CA-B"), ServerName: "b"}}
	c, err := crossConfig(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if c.Host != "https://b" || string(c.CAData) != "CA-B" || c.ServerName != "b" || string(c.CertData) != "CERT-A" ||
		string(c.KeyData) != "KEY-A" || c.BearerToken != "" {
		t.Errorf("cross = %+v", c)
	}
	if _, err := crossConfig(&rest.Config{Host: "https://a"}, b); err == nil || !strings.Contains(err.Error(), "carries no credentials") {
		t.Errorf("err = %v", err)
	}
}

func TestPodObject(t *testing.T) {
	r, _ := fakeRunner(nil)
	tt := newT(r)
	p := tt.podObject("tenant-a", "ns", gpuPod{name: "p", gpus: 1, memMB: 20000, cores: 30, node: "n1"})
	lim := p.Spec.Containers[0].Resources.Limits
	mem := lim[corev1.ResourceName(gpus.ResourceGPUMem)]
	if p.Spec.SchedulerName != gpus.SchedulerName || mem.Value() != 20000 || len(lim) != 3 || p.Labels[labelRun] != "test1" {
		t.Errorf("pod = %+v", p.Spec)
	}
	term := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0]
	if term.MatchFields[0].Values[0] != "n1" {
		t.Errorf("affinity = %+v", term)
	}
	w := tt.podObject("tenant-a", "ns", gpuPod{name: "w", memMB: 1000, viaWebhook: true})
	if w.Spec.SchedulerName != "" || len(w.Spec.Containers[0].Resources.Limits) != 1 || w.Spec.Affinity != nil {
		t.Errorf("webhook pod = %+v", w.Spec)
	}
}
