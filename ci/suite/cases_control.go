package suite

import (
	"context"
	"fmt"
	"strings"

	"github.com/sourcegraph/conc/pool"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/suite/assert"
)

// controlCases declares the control-plane cases: each its own task,
// checking every tenant at once.
var controlCases = []caseDecl{
	{
		Case: Case{ID: "TC-01", Title: "Tenant control planes answer and report the pinned version", Core: true,
			Asserts: "every tenant API server answers /readyz with ok and reports the Kubernetes version the lab pins",
			Needs:   "nothing"},
		place: everyTenant,
		run:   func(ctx context.Context, t *caseT, s *stage) error { return s.r.tc01(ctx, t) },
	},
	{
		Case: Case{ID: "TC-02", Title: "Workers joined with the spec's GPUs registered", Core: true,
			Asserts: "every tenant has exactly its own workers, Ready, each with hami.io/node-nvidia-register " +
				"decoding to the spec's cards (model type, MB, 100% cores, healthy) and allocatable " +
				"nvidia.com/gpu = split count × cards",
			Needs: "nothing"},
		place: everyTenant,
		run:   func(ctx context.Context, t *caseT, s *stage) error { return s.r.tc02(ctx, t) },
	},
	{
		Case: Case{ID: "TC-04", Title: "Mutating webhook reached through the Konnectivity tunnel", Core: true,
			Asserts: "in every tenant, a pod asking only nvidia.com/gpumem comes back from the API server with " +
				"schedulerName hami-scheduler and nvidia.com/gpu: 1 added; HAMi's webhook fails open, so " +
				"the mutation is the proof the API server reached it (through the tunnel, the only path " +
				"from control plane to worker)",
			Needs: "nothing"},
		place: everyTenant,
		run:   func(ctx context.Context, t *caseT, s *stage) error { return s.r.tc04(ctx, t) },
	},
}

// perTenant runs f for every tenant at once and joins their errors.
func (t *caseT) perTenant(f func(tenant string) error) error {
	p := pool.New().WithErrors()
	for _, tn := range t.lab().TenantNames() {
		p.Go(func() error { return f(tn) })
	}
	return p.Wait()
}

// TC-01
func (r *runner) tc01(ctx context.Context, t *caseT) error {
	want := r.cfg.KubernetesVersion
	return t.perTenant(func(tn string) error {
		d := t.client(tn).Discovery()
		body, err := d.RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err != nil {
			return fmt.Errorf("tenant %s: GET /readyz: %w (%s)", tn, err, strings.TrimSpace(string(body)))
		}
		if strings.TrimSpace(string(body)) != "ok" {
			return fmt.Errorf("tenant %s: /readyz answered %q, want ok", tn, body)
		}
		v, err := d.ServerVersion()
		if err != nil {
			return fmt.Errorf("tenant %s: GET /version: %w", tn, err)
		}
		if err := assert.Version(tn, v.GitVersion, want); err != nil {
			return err
		}
		t.step("tenant %s: /readyz ok, version %s", tn, v.GitVersion)
		return nil
	})
}

// TC-02
func (r *runner) tc02(ctx context.Context, t *caseT) error {
	return t.perTenant(func(tn string) error {
		nodes, err := t.client(tn).CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("tenant %s: list nodes: %w", tn, err)
		}
		matched, extra, err := matchWorkers(r.cfg.Lab, tn, nodes.Items)
		if err != nil {
			return err
		}
		if len(extra) > 0 {
			return fmt.Errorf("tenant %s has node(s) %s that the lab spec does not give it", tn, strings.Join(extra, ", "))
		}
		for _, m := range matched {
			if !nodeReady(m.Node) {
				return fmt.Errorf("tenant %s: node %s is not Ready (%s)", tn, m.Node.Name, readyMessage(m.Node))
			}
			devs, err := nodeCards(m.Node)
			if err != nil {
				return fmt.Errorf("tenant %s: %w", tn, err)
			}
			if err := assert.Register(m.Node.Name, m.Worker.Cards(), devs); err != nil {
				return fmt.Errorf("tenant %s: %w", tn, err)
			}
			want := gpus.GPUCapacity(r.cfg.Lab, m.Worker)
			got := m.Node.Status.Allocatable[corev1.ResourceName(gpus.ResourceGPU)]
			if got.Value() != int64(want) {
				return fmt.Errorf("tenant %s: node %s has allocatable %s %s, want %d (split count %d × %d cards)",
					tn, m.Node.Name, gpus.ResourceGPU, got.String(), want, r.cfg.Lab.HAMi.SplitCount, len(devs))
			}
			var cards []string
			for _, d := range devs {
				cards = append(cards, fmt.Sprintf("%s %s %d MB", d.ID, d.Type, d.Devmem))
			}
			t.step("tenant %s: worker %s is node %s, Ready, allocatable %s %d, cards: %s",
				tn, m.Worker.Name, m.Node.Name, gpus.ResourceGPU, want, strings.Join(cards, "; "))
		}
		return nil
	})
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func readyMessage(n *corev1.Node) string {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return fmt.Sprintf("Ready=%s %s: %s", c.Status, c.Reason, c.Message)
		}
	}
	return "no Ready condition"
}

// TC-04
func (r *runner) tc04(ctx context.Context, t *caseT) error {
	return t.perTenant(func(tn string) error {
		// Pinned to a node that does not exist: the pod is never scheduled,
		// so it holds no GPU while the scenarios run.
		ask := gpuPod{name: "tc04-gpumem-only", memMB: seedSmallMB, node: noNode, viaWebhook: true}
		p, err := t.createPod(ctx, tn, ask)
		if err != nil {
			return err
		}
		ref := podRef{tn, p.Namespace, p.Name}
		defer func() { _ = t.deletePod(context.WithoutCancel(ctx), ref) }()
		t.step("tenant %s: created %s asking only %s: %d, no schedulerName", tn, ref, gpus.ResourceGPUMem, seedSmallMB)
		gpu, hasGPU := p.Spec.Containers[0].Resources.Limits[corev1.ResourceName(gpus.ResourceGPU)]
		if p.Spec.SchedulerName != gpus.SchedulerName || !hasGPU {
			return fmt.Errorf("tenant %s: pod %s came back unmutated (schedulerName %q, %s limit %s): the API server did "+
				"not reach HAMi's webhook, which fails open — check the webhook Service and the "+
				"Konnectivity tunnel: %s",
				tn, ref, p.Spec.SchedulerName, gpus.ResourceGPU, quantityOrAbsent(&gpu, hasGPU), t.webhookRoute(ctx, tn))
		}
		if gpu.Value() != 1 {
			return fmt.Errorf("tenant %s: pod %s got %s: %s from the webhook, want 1", tn, ref, gpus.ResourceGPU, gpu.String())
		}
		t.step("tenant %s: the webhook set schedulerName %s and added %s: 1", tn, p.Spec.SchedulerName, gpus.ResourceGPU)
		return nil
	})
}

func quantityOrAbsent(q interface{ String() string }, ok bool) string {
	if !ok {
		return "absent"
	}
	return q.String()
}
