package suite

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// isolationCases declares the isolation cases: each its own task, across
// every tenant.
var isolationCases = []caseDecl{
	{
		Case: Case{ID: "TC-08", Title: "Tenants see only their own nodes, pods, GPUs and objects", Core: true,
			Asserts: "each tenant's API lists only its own nodes, GPU cards and capacity and only its own suite " +
				"pods; a namespace, ConfigMap and pod created in one tenant do not exist in any other",
			Needs: "nothing (one tenant: only its own view is checked)"},
		place: everyTenant,
		run:   func(ctx context.Context, t *caseT, s *stage) error { return s.r.tc08(ctx, t) },
	},
	{
		Case: Case{ID: "TC-15", Title: "A tenant's credentials are rejected by every other tenant",
			Asserts: "each tenant's credentials work against its own API server and get 401 Unauthorized from " +
				"every other tenant's API server",
			Needs: "two tenants"},
		place: betweenTenants,
		run:   func(ctx context.Context, t *caseT, s *stage) error { return s.r.tc15(ctx, t) },
	},
}

// TC-08: every tenant creates marker objects named after itself, then
// every tenant checks it sees only its own nodes, cards, suite objects and
// markers; a card registered in two tenants fails the case too.
func (r *runner) tc08(ctx context.Context, t *caseT) error {
	if err := t.perTenant(func(tn string) error { return t.createMarkers(ctx, tn) }); err != nil {
		return err
	}
	uuidOwner := map[string]string{}
	err := t.perTenant(func(tn string) error {
		cs := t.client(tn)
		nodes, cards, gpu, err := r.ownNodesAndCards(ctx, tn, cs)
		if err != nil {
			return err
		}
		t.mu.Lock()
		for _, u := range cards {
			uuidOwner[u] += tn + " "
		}
		t.mu.Unlock()
		objects, err := r.ownSuiteObjects(ctx, tn, cs)
		if err != nil {
			return err
		}
		if err := r.noOtherMarkers(ctx, t, tn, cs); err != nil {
			return err
		}
		t.step("tenant %s sees only its %d node(s), %d card(s), %d %s, and only its own %s",
			tn, nodes, len(cards), gpu, gpus.ResourceGPU, objects)
		return nil
	})
	if err != nil {
		return err
	}
	for u, o := range uuidOwner {
		if strings.Count(o, " ") > 1 {
			return fmt.Errorf("card %s is registered in several tenants: %s", u, strings.TrimSpace(o))
		}
	}
	if len(r.cfg.Lab.Tenants) < 2 {
		t.step("the lab has one tenant: nothing to compare across tenants")
	}
	return nil
}

// createMarkers creates, in the tenant's suite namespace, a ConfigMap and
// a pod named marker-TENANT.
func (t *caseT) createMarkers(ctx context.Context, tn string) error {
	ns, err := t.namespace(ctx, tn)
	if err != nil {
		return err
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "marker-" + tn, Namespace: ns, Labels: t.labels(tn)}}
	if _, err := t.client(tn).CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("tenant %s: create ConfigMap %s/%s: %w", tn, ns, cm.Name, err)
	}
	if _, err := t.createPod(ctx, tn, gpuPod{name: "marker-" + tn, node: noNode, viaWebhook: true}); err != nil {
		return err
	}
	t.step("tenant %s: created namespace %s with ConfigMap and pod marker-%s", tn, ns, tn)
	return nil
}

// ownNodesAndCards checks that the tenant lists only its own workers and,
// in total, exactly their GPU capacity; it returns how many nodes, the
// UUIDs of their cards and the allocatable GPUs.
func (r *runner) ownNodesAndCards(ctx context.Context, tn string, cs kubernetes.Interface) (int, []string, int64, error) {
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, nil, 0, fmt.Errorf("tenant %s: list nodes: %w", tn, err)
	}
	matched, extra, err := matchWorkers(r.cfg.Lab, tn, nodes.Items)
	if err != nil {
		return 0, nil, 0, err
	}
	if len(extra) > 0 {
		return 0, nil, 0, fmt.Errorf("tenant %s lists node(s) %s that are not its workers", tn, strings.Join(extra, ", "))
	}
	want, got := 0, int64(0)
	var cards []string
	for _, m := range matched {
		want += gpus.GPUCapacity(r.cfg.Lab, m.Worker)
		q := m.Node.Status.Allocatable[corev1.ResourceName(gpus.ResourceGPU)]
		got += q.Value()
		for _, d := range m.Cards {
			cards = append(cards, d.ID)
		}
	}
	if got != int64(want) {
		return 0, nil, 0, fmt.Errorf("tenant %s sees %d allocatable %s in total, its own workers have %d", tn, got, gpus.ResourceGPU, want)
	}
	return len(matched), cards, got, nil
}

// ownSuiteObjects checks that every pod, ConfigMap and namespace of this
// run the tenant lists was created in it, and says how many it saw.
func (r *runner) ownSuiteObjects(ctx context.Context, tn string, cs kubernetes.Interface) (string, error) {
	sel := metav1.ListOptions{LabelSelector: labelRun + "=" + r.runID}
	pods, err := cs.CoreV1().Pods(metav1.NamespaceAll).List(ctx, sel)
	if err != nil {
		return "", fmt.Errorf("tenant %s: list pods: %w", tn, err)
	}
	cms, err := cs.CoreV1().ConfigMaps(metav1.NamespaceAll).List(ctx, sel)
	if err != nil {
		return "", fmt.Errorf("tenant %s: list ConfigMaps: %w", tn, err)
	}
	nss, err := cs.CoreV1().Namespaces().List(ctx, sel)
	if err != nil {
		return "", fmt.Errorf("tenant %s: list namespaces: %w", tn, err)
	}
	var counts []string
	for _, l := range []struct {
		kind string
		list runtime.Object
	}{{"pod", pods}, {"ConfigMap", cms}, {"namespace", nss}} {
		items, err := meta.ExtractList(l.list)
		if err != nil {
			return "", fmt.Errorf("tenant %s: %ss: %w", tn, l.kind, err)
		}
		for _, o := range items {
			m, err := meta.Accessor(o)
			if err != nil {
				return "", fmt.Errorf("tenant %s: %ss: %w", tn, l.kind, err)
			}
			if owner := m.GetLabels()[labelTenant]; owner != tn {
				name := strings.TrimPrefix(m.GetNamespace()+"/"+m.GetName(), "/")
				return "", fmt.Errorf("tenant %s lists %s %s, which the suite created in tenant %s", tn, l.kind, name, owner)
			}
		}
		counts = append(counts, fmt.Sprintf("%d suite %s(s)", len(items), l.kind))
	}
	return strings.Join(counts, ", "), nil
}

// noOtherMarkers checks that no other tenant's marker ConfigMap or pod is
// visible in this tenant's suite namespace.
func (r *runner) noOtherMarkers(ctx context.Context, t *caseT, tn string, cs kubernetes.Interface) error {
	ns, _ := t.namespace(ctx, tn)
	for _, other := range r.cfg.Lab.TenantNames() {
		if other == tn {
			continue
		}
		if _, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "marker-"+other, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("tenant %s: ConfigMap %s/marker-%s (created in %s) is visible here (err %v)", tn, ns, other, other, err)
		}
		if _, err := cs.CoreV1().Pods(ns).Get(ctx, "marker-"+other, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("tenant %s: pod %s/marker-%s (created in %s) is visible here (err %v)", tn, ns, other, other, err)
		}
	}
	return nil
}

// TC-15
func (r *runner) tc15(ctx context.Context, t *caseT) error {
	names := r.cfg.Lab.TenantNames()
	return t.perTenant(func(a string) error {
		own, err := kubernetes.NewForConfig(r.cfg.Tenants[a])
		if err != nil {
			return fmt.Errorf("tenant %s: client: %w", a, err)
		}
		if _, err := own.CoreV1().Namespaces().List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
			return fmt.Errorf("tenant %s's credentials do not work against its own API server: %w", a, err)
		}
		for _, b := range names {
			if b == a {
				continue
			}
			cross, err := crossConfig(r.cfg.Tenants[a], r.cfg.Tenants[b])
			if err != nil {
				return fmt.Errorf("tenant %s: %w", a, err)
			}
			cs, err := kubernetes.NewForConfig(cross)
			if err != nil {
				return fmt.Errorf("client for %s's credentials at %s: %w", a, b, err)
			}
			_, err = cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{Limit: 1})
			switch {
			case err == nil:
				return fmt.Errorf("tenant %s's API server (%s) accepted tenant %s's credentials: tenants must not trust each "+
					"other's CA or tokens", b, cross.Host, a)
			case apierrors.IsUnauthorized(err):
				t.step("tenant %s's credentials: accepted by %s, rejected by %s with 401 Unauthorized", a, a, b)
			case apierrors.IsForbidden(err):
				return fmt.Errorf("tenant %s's API server authenticated tenant %s's credentials (403 Forbidden, not 401): %v", b, a, err)
			default:
				return fmt.Errorf("tenant %s's credentials against tenant %s's API server: want 401 Unauthorized, got: %v", a, b, err)
			}
		}
		return nil
	})
}

// crossConfig is a's credentials aimed at b's API server, trusting b's CA,
// so the answer comes from b's authenticator rather than a TLS failure.
func crossConfig(a, b *rest.Config) (*rest.Config, error) {
	c := rest.AnonymousClientConfig(b)
	c.CertFile, c.KeyFile = a.CertFile, a.KeyFile
	c.CertData, c.KeyData = a.CertData, a.KeyData
	c.BearerToken, c.BearerTokenFile = a.BearerToken, a.BearerTokenFile
	c.Username, c.Password = a.Username, a.Password
	c.AuthProvider, c.ExecProvider = a.AuthProvider, a.ExecProvider
	if c.CertFile == "" && len(c.CertData) == 0 && c.BearerToken == "" && c.BearerTokenFile == "" &&
		c.Username == "" && c.AuthProvider == nil && c.ExecProvider == nil {
		return nil, fmt.Errorf("its rest.Config carries no credentials (client certificate, token, basic auth or exec " +
			"plugin) to try elsewhere")
	}
	return c, nil
}
