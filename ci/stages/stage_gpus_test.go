package stages

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	kubefake "k8s.io/client-go/kubernetes/fake"
	restclient "k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/gpus/deviceplugin"
	"github.com/gpu-lab/gpu-lab/ci/internal/nodeimage"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// staticELF is the smallest file debug/elf accepts as a static x86-64
// executable: a 64-byte header, no program headers, no sections.
func staticELF() []byte {
	h := make([]byte, 64)
	copy(h, []byte{0x7f, 'E', 'L', 'F', 2, 1, 1})
	binary.LittleEndian.PutUint16(h[16:], 2)  // ET_EXEC
	binary.LittleEndian.PutUint16(h[18:], 62) // EM_X86_64
	binary.LittleEndian.PutUint32(h[20:], 1)  // EV_CURRENT
	binary.LittleEndian.PutUint16(h[52:], 64) // e_ehsize
	binary.LittleEndian.PutUint16(h[54:], 56) // e_phentsize
	binary.LittleEndian.PutUint16(h[58:], 64) // e_shentsize
	return h
}

type proxyBody []byte

func (p proxyBody) DoRaw(context.Context) ([]byte, error) { return p, nil }
func (p proxyBody) Stream(context.Context) (io.ReadCloser, error) {
	return nil, nil
}

// gpusTenants is a lab whose tenants are ready for stage gpus: each worker
// registered by the hami stage (deviceplugin.RegisterNode), the finalizer
// Deployment the stage applies available, HAMi's scheduler Service serving
// the recorded real scrape for the registered cards (after one empty scrape),
// and each worker's containerd reporting its snapshotter. It returns the
// env, the fake daemon, the finalizer image and the snapshotter per worker.
func gpusTenants(t *testing.T) (*Env, *fakeDocker, string, map[string]string) {
	t.Helper()
	e, d, _, _ := managementUp(t)
	bin := filepath.Join(t.TempDir(), "labctl")
	if err := os.WriteFile(bin, staticELF(), 0o755); err != nil {
		t.Fatal(err)
	}
	e.LabctlBinary = bin
	img := finalizerImage(staticELF())

	tenants := map[string]*Clients{}
	for _, tn := range e.Lab.Tenants {
		node := e.Lab.NodeName(tn.Name, tn.Workers[0].Name)
		d.containers[node] = runningOn(node, "kind", "172.18.0.5")
		kc := adminConf(t, e.Reach.tenantServer("172.18.0.2", tn.Ports.APIServer))
		if err := e.State.WriteKubeconfig(tn.Name, kc); err != nil {
			t.Fatal(err)
		}
		// In a real tenant the Deployment the stage applies becomes available
		// and HAMi's scheduler reports the registered cards; the fake
		// clientset stands in for both.
		ready := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: finalizerName, Namespace: finalizerNamespace, Generation: 1},
			Spec: appsv1.DeploymentSpec{Replicas: i32(1), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "finalizer", Image: img}}}}},
			Status: appsv1.DeploymentStatus{ObservedGeneration: 1, AvailableReplicas: 1, UpdatedReplicas: 1},
		}
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: hamiScheduler, Namespace: render.HAMiNamespace},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "monitor", Port: 31993, TargetPort: intstr.FromInt32(9395)}}}}
		nodeObj := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}}
		c := newFakeClients(ready, svc, nodeObj)
		// The hami stage registered the GPUs before installing HAMi.
		if err := deviceplugin.RegisterNode(context.Background(), c.Kube, e.Lab, tn.Name, tn.Workers[0], node); err != nil {
			t.Fatal(err)
		}
		scrapes := 0
		c.Kube.(*kubefake.Clientset).PrependProxyReactor("services", func(a k8stesting.Action) (bool, restclient.ResponseWrapper, error) {
			scrapes++
			if scrapes == 1 {
				return true, proxyBody(""), nil // scheduler has not registered the node yet
			}
			// Reactors run under the fake's lock: read the tracker directly.
			obj, err := c.Kube.(*kubefake.Clientset).Tracker().Get(corev1.SchemeGroupVersion.WithResource("nodes"), "", node)
			if err != nil {
				return true, nil, err
			}
			devs, err := gpus.DecodeRegister(obj.(*corev1.Node).Annotations[gpus.AnnoRegister])
			if err != nil {
				return true, nil, err
			}
			var uuids []string
			for _, dv := range devs {
				uuids = append(uuids, dv.ID)
			}
			scrape, err := recordedHAMiScrape(node, uuids)
			if err != nil {
				return true, nil, err
			}
			return true, proxyBody(scrape), nil
		})
		tenants[tn.Name] = c
		e.clients = map[string]*Clients{}
	}
	for name, c := range tenants {
		e.clients[name] = c
	}
	// Each worker's containerd reports its snapshotter: the recorded kind
	// node dump, and for tenant-b's worker the same dump after the
	// entrypoint's sed to "native" (what kindest/node does on zfs).
	dump, err := os.ReadFile("../internal/nodeimage/testdata/containerd-config-dump-kind-node-v2.toml")
	if err != nil {
		t.Fatal(err)
	}
	wantSnapshotter := map[string]string{
		e.Lab.NodeName("tenant-a", "worker"): "overlayfs",
		e.Lab.NodeName("tenant-b", "worker"): "native",
	}
	d.execOut = func(container string, cmd []string) ([]byte, error) {
		if strings.Join(cmd, " ") == strings.Join(nodeimage.ContainerdConfigDumpCommand, " ") {
			return []byte(strings.Replace(string(dump), `snapshotter = "overlayfs"`, `snapshotter = "`+wantSnapshotter[container]+`"`, 1)), nil
		}
		return nil, nil
	}

	return e, d, img, wantSnapshotter
}

func TestGPUsStage(t *testing.T) {
	e, d, img, wantSnapshotter := gpusTenants(t)
	// A failure bound, not a timing assertion: a stage that cannot read the
	// scrape fails here instead of hanging the test for minutes.
	e.Timeouts.Cards = 20 * time.Second
	msg, err := gpusStage{}.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "HAMi sees all 3 cards") {
		t.Errorf("summary = %s", msg)
	}
	if !d.images[img] {
		t.Errorf("finalizer image %s not imported", img)
	}
	imports := 0
	for _, c := range d.calls {
		for node, sn := range wantSnapshotter {
			if c == "exec "+node+" "+strings.Join(nodeimage.ContainerdImportCommand(sn, fakePlatform, true), " ") {
				imports++
			}
		}
	}
	if imports != 2 {
		t.Errorf("containerd imports with the worker's snapshotter = %d, want one per worker:\n%s", imports, strings.Join(d.calls, "\n"))
	}
	done, why, err := gpusStage{}.Check(context.Background(), e)
	if err != nil || !done {
		t.Fatalf("Check after Run = %v (%s), %v", done, why, err)
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
