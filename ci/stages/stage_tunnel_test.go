package stages

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gpu-lab/gpu-lab/ci/render"
)

// seedTenantAddons gives a tenant what Kamaji's addons run once its workers
// join: a ready konnectivity-agent DaemonSet with a running agent pod on
// each named worker, and a ready CoreDNS Deployment.
func seedTenantAddons(t *testing.T, c *Clients, workers ...string) {
	t.Helper()
	n := int32(len(workers))
	objs := []runtime.Object{
		&appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Name: render.KonnectivityAgentName, Namespace: "kube-system"},
			Status:     appsv1.DaemonSetStatus{DesiredNumberScheduled: n, NumberReady: n, UpdatedNumberScheduled: n},
		},
		&appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: coreDNSName, Namespace: "kube-system"},
			Status:     appsv1.DeploymentStatus{Replicas: 2, ReadyReplicas: 2, UpdatedReplicas: 2, AvailableReplicas: 2},
		},
	}
	for _, w := range workers {
		objs = append(objs, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: render.KonnectivityAgentName + "-" + w, Namespace: "kube-system",
				Labels: map[string]string{"k8s-app": render.KonnectivityAgentName}},
			Spec:   corev1.PodSpec{NodeName: w},
			Status: corev1.PodStatus{Phase: corev1.PodRunning},
		})
	}
	tracker := c.Kube.(*kubefake.Clientset).Tracker()
	for _, o := range objs {
		if err := tracker.Add(o); err != nil {
			t.Fatal(err)
		}
	}
}

// logReads records pods/log reads and answers them with err (nil: the
// fake's log).
type logReads struct {
	mu   sync.Mutex
	pods []string
	err  error
}

func (l *logReads) react(a k8stesting.Action) (bool, runtime.Object, error) {
	if a.GetSubresource() != "log" {
		return false, nil, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pods = append(l.pods, a.GetNamespace()+"/"+a.GetResource().Resource+"/log")
	if l.err != nil {
		return true, nil, l.err
	}
	return true, &runtime.Unknown{Raw: []byte("I1201 agent connected")}, nil
}

func TestWorkersStageProvesTheKonnectivityTunnel(t *testing.T) {
	t.Parallel() // two of its runs wait out their failure bounds
	for _, tt := range []struct {
		name      string
		agents    bool // agent pods and DaemonSet present
		logErr    error
		errHas    []string
		wantReads bool
	}{
		{"tunnel carries pods/log", true, nil, nil, true},
		{"no agent connected", true, errors.New(`Get "https://172.18.0.9:10250/containerLogs/kube-system/` +
			`konnectivity-agent-x/konnectivity-agent?tailLines=1": No agent available`),
			[]string{"konnectivity tunnel of tenant tenant-a to gpu-lab-tenant-a-worker", "No agent available", "konnectivity-server",
				"konnectivity-agent"}, true},
		{"agents never scheduled", false, nil,
			[]string{"DaemonSet kube-system/konnectivity-agent in tenant tenant-a (the konnectivity tunnel's agents)"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, _, clients := joiningEnv(t)
			// Failure bounds, not timings: a broken tunnel fails the stage
			// after them, with the condition its polls saw.
			e.Timeouts.Rollout, e.Timeouts.NodeReady = time.Second, time.Second
			// Only tenant-a's tunnel is broken: the tenants run side by
			// side, so with both broken either could fail first.
			reads := map[string]*logReads{}
			for _, tn := range e.Lab.Tenants {
				c := clients[tn.Name]
				broken := tn.Name == "tenant-a"
				if !tt.agents && broken { // joiningEnv seeds them: take the agents away
					tracker := c.Kube.(*kubefake.Clientset).Tracker()
					if err := tracker.Delete(appsv1.SchemeGroupVersion.WithResource("daemonsets"), "kube-system",
						render.KonnectivityAgentName); err != nil {
						t.Fatal(err)
					}
					if err := tracker.Delete(corev1.SchemeGroupVersion.WithResource("pods"), "kube-system",
						render.KonnectivityAgentName+"-"+e.Lab.NodeName(tn.Name, "worker")); err != nil {
						t.Fatal(err)
					}
				}
				reads[tn.Name] = &logReads{}
				if broken {
					reads[tn.Name].err = tt.logErr
				}
				c.Kube.(*kubefake.Clientset).PrependReactor("get", "pods", reads[tn.Name].react)
			}
			_, err := workersStage{}.Run(context.Background(), e)
			if len(tt.errHas) == 0 && err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.errHas {
				if err == nil || !strings.Contains(err.Error(), s) {
					t.Errorf("err = %v\nwant it to name %q", err, s)
				}
			}
			if got := len(reads["tenant-a"].pods) > 0; got != tt.wantReads {
				t.Errorf("pods/log reads in tenant-a: %v, want some: %v", reads["tenant-a"].pods, tt.wantReads)
			}
			if tt.errHas == nil {
				if n := len(reads["tenant-b"].pods); n != 1 {
					t.Errorf("tenant-b: %d pods/log reads, want one round trip for its one worker", n)
				}
				done, why, err := workersStage{}.Check(context.Background(), e)
				if err != nil || !done || !strings.Contains(why, "konnectivity tunnel") {
					t.Errorf("Check after Run = %v (%s), %v", done, why, err)
				}
			}
		})
	}
}

func TestWorkersPlanProvesTheTunnel(t *testing.T) {
	e, _, _, _ := testEnv(t)
	lines, err := workersStage{}.Plan(e)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(lines, "\n")
	ready := strings.Index(text, "wait Node gpu-lab-tenant-a-worker Ready")
	agents := strings.Index(text, "wait in tenant tenant-a until DaemonSet kube-system/konnectivity-agent")
	proof := strings.Index(text, "prove the konnectivity tunnel of tenant tenant-a: GET pods/log")
	if ready < 0 || agents < ready || proof < agents {
		t.Errorf("plan: Node Ready at %d, agents at %d, tunnel proof at %d; want them in that order:\n%s", ready, agents, proof, text)
	}
}
