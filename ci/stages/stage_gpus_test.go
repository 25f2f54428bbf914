package stages

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	kubefake "k8s.io/client-go/kubernetes/fake"
	restclient "k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

type proxyBody []byte

func (p proxyBody) DoRaw(context.Context) ([]byte, error) { return p, nil }
func (p proxyBody) Stream(context.Context) (io.ReadCloser, error) {
	return nil, nil
}

// readyDaemonSet is a DaemonSet as the API server reports it once ready on
// n nodes.
func readyDaemonSet(name string, n int32) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: render.HAMiNamespace, Generation: 1},
		Status:     appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: n, NumberReady: n, UpdatedNumberScheduled: n},
	}
}

// gpusTenants is a lab whose tenants are as HAMi's device plugin leaves
// them: its DaemonSet ready on the worker, the kubelet's nvidia.com/gpu
// count of the plugin's devices in the Node's capacity and allocatable, and
// HAMi's scheduler Service serving the recorded real scrape for the lab's
// cards (after one empty scrape: the scheduler's tick has not come yet).
func gpusTenants(t *testing.T) *Env {
	t.Helper()
	e, d, _, _ := managementUp(t)
	e.clients = map[string]*Clients{}
	for _, tn := range e.Lab.Tenants {
		w := tn.Workers[0]
		node := e.Lab.NodeName(tn.Name, w.Name)
		d.containers[node] = runningOn(node, "kind", "172.18.0.5")
		kc := adminConf(t, e.Reach.tenantServer("172.18.0.2", tn.Ports.APIServer))
		if err := e.State.WriteKubeconfig(tn.Name, kc); err != nil {
			t.Fatal(err)
		}
		count := resource.MustParse(fmt.Sprint(gpus.GPUCapacity(e.Lab, w)))
		nodeObj := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}, Status: corev1.NodeStatus{
			Capacity:    corev1.ResourceList{gpus.ResourceGPU: count},
			Allocatable: corev1.ResourceList{gpus.ResourceGPU: count},
		}}
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: hamiScheduler, Namespace: render.HAMiNamespace},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "monitor", Port: 31993, TargetPort: intstr.FromInt32(9395)}}}}
		c := newFakeClients(readyDaemonSet(render.HAMiDevicePluginObject, 1), svc, nodeObj)
		scrapes := 0
		cards := wantCards(e, tn.Name)
		c.Kube.(*kubefake.Clientset).PrependProxyReactor("services", func(a k8stesting.Action) (bool, restclient.ResponseWrapper, error) {
			scrapes++
			if scrapes == 1 {
				return true, proxyBody(""), nil // scheduler has not registered the node yet
			}
			scrape, err := recordedHAMiScrape(node, cards)
			if err != nil {
				return true, nil, err
			}
			return true, proxyBody(scrape), nil
		})
		e.clients[tn.Name] = c
	}
	return e
}

func TestGPUsStage(t *testing.T) {
	e := gpusTenants(t)
	// A failure bound, not a timing assertion: a stage that cannot read the
	// scrape fails here instead of hanging the test for minutes.
	e.Timeouts.Cards = 20 * time.Second
	if done, _, _ := (gpusStage{}).Check(context.Background(), e); done {
		t.Error("Check before any scrape lists the cards: done")
	}
	ran := &stepRecorder{}
	e.Steps = ran
	msg, err := gpusStage{}.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	ran.didWhatThePlanSays(t, func() (steps.Step, error) { return gpusSteps(e), nil })
	if !strings.Contains(msg, "HAMi sees all 3 cards") {
		t.Errorf("summary = %s", msg)
	}
	done, why, err := gpusStage{}.Check(context.Background(), e)
	if err != nil || !done {
		t.Fatalf("Check after Run = %v (%s), %v", done, why, err)
	}
}

// The stage fails, naming what is missing, when HAMi's device plugin does
// not run on the worker or the kubelet does not count its devices; Check
// agrees.
func TestGPUsStageGatesOnTheDevicePlugin(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		breakIt func(t *testing.T, c *Clients, node string)
		want    []string
	}{
		{"plugin scheduled on no node", func(t *testing.T, c *Clients, _ string) {
			if _, err := c.Kube.AppsV1().DaemonSets(render.HAMiNamespace).UpdateStatus(ctx, readyDaemonSet(render.HAMiDevicePluginObject, 0),
				metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}, []string{"stage gpus", "DaemonSet kube-system/hami-device-plugin in tenant tenant-b", "scheduled on no node"}},
		{"kubelet counts no devices", func(t *testing.T, c *Clients, node string) {
			n, _ := c.Kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
			n.Status.Allocatable[gpus.ResourceGPU] = resource.MustParse("0")
			if _, err := c.Kube.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}, []string{"stage gpus",
			"tenant tenant-b worker worker (Node gpu-lab-tenant-b-worker): allocatable nvidia.com/gpu want 20, got 0",
			"container device-plugin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := gpusTenants(t)
			// A failure bound: nothing in the fake tenant repairs it.
			e.Timeouts.Cards, e.Timeouts.Rollout = 300*time.Millisecond, 300*time.Millisecond
			tc.breakIt(t, e.clients["tenant-b"], e.Lab.NodeName("tenant-b", "worker"))
			_, err := gpusStage{}.Run(ctx, e)
			if err == nil {
				t.Fatal("stage gpus passed")
			}
			for _, part := range tc.want {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q lacks %q", err, part)
				}
			}
			if done, _, _ := (gpusStage{}).Check(ctx, e); done {
				t.Error("Check: done, want not done")
			}
		})
	}
}

// The recorded real HAMi v2.10.0 scrape (ci/gpus/testdata/README.md) and the
// card UUIDs and node it names.
const (
	recordedScrapePath = "../gpus/testdata/hami-v2.10.0-metrics.txt"
	recordedScrapeNode = "tenant-b-worker"
)

var recordedScrapeCards = []string{"GPU-e18743c3-5b23-bbfb-f403-f5f9ab9b4640", "GPU-27108987-6cd9-6a62-688c-e7a68b0c29b0"}

// recordedHAMiScrape is what the real HAMi scheduler would serve for a node
// with the given cards: the recorded scrape with its node and UUIDs replaced
// and the lines of cards the node does not have dropped. The format stays
// HAMi's own, never one the project's code produced.
func recordedHAMiScrape(node string, uuids []string) ([]byte, error) {
	raw, err := os.ReadFile(recordedScrapePath)
	if err != nil {
		return nil, err
	}
	if len(uuids) > len(recordedScrapeCards) {
		return nil, fmt.Errorf("the recorded scrape has %d cards, the test wants %d", len(recordedScrapeCards), len(uuids))
	}
	var out []string
	for _, line := range strings.Split(string(raw), "\n") {
		keep := true
		for i, rec := range recordedScrapeCards {
			if !strings.Contains(line, rec) {
				continue
			}
			if i >= len(uuids) {
				keep = false
				break
			}
			line = strings.ReplaceAll(line, rec, uuids[i])
		}
		if keep {
			out = append(out, strings.ReplaceAll(line, `node="`+recordedScrapeNode+`"`, `node="`+node+`"`))
		}
	}
	return []byte(strings.Join(out, "\n")), nil
}
