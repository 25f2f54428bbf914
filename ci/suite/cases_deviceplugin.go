package suite

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// pluginCases declares TC-20, its own task: it looks at every tenant's
// workers.
var pluginCases = []caseDecl{
	{
		Case: Case{ID: "TC-20", Title: "The kubelet counts HAMi's device plugin's devices: nvidia.com/gpu capacity = allocatable " +
			"= split × cards",
			Asserts: "every tenant runs DaemonSet kube-system/hami-device-plugin, and every worker's Node has " +
				"nvidia.com/gpu in capacity and in allocatable equal to hami.splitCount × its cards, and " +
				"no nvidia.com/gpumem capacity (the plugin registers only nvidia.com/gpu; another writer " +
				"of the Node's status would fight it)",
			Needs: "HAMi's device plugin on the workers: the real lab runs it; where no tenant does (the " +
				"local test environment, which has no kubelet) the case is skipped saying so"},
		place: everyTenant,
		run:   func(ctx context.Context, t *caseT, s *stage) error { return s.r.tc20(ctx, t) },
	},
}

// HAMi's device plugin DaemonSet as chart hami 2.10.0 names it for release
// "hami" in kube-system (charts/hami/templates/_helpers.tpl:47-49,
// device-plugin/daemonsetnvidia.yaml:5-6@v2.10.0; ci/render
// HAMiDevicePluginObject, which the suite does not import).
const (
	devicePluginNamespace = "kube-system"
	devicePluginDaemonSet = "hami-device-plugin"
)

// notApplicable ends a case as skipped while it runs: the platform was
// looked at and lacks what the case is about. The reason says what was
// looked at.
type notApplicable struct{ why string }

func (n notApplicable) Error() string { return "skipped: " + n.why }

// skippedBy is the skip message of a case that ended notApplicable.
func skippedBy(err error) (string, bool) {
	var na notApplicable
	if errors.As(err, &na) {
		return na.Error(), true
	}
	return "", false
}

// noDevicePlugin is TC-20's skip reason where no tenant runs the plugin.
const noDevicePlugin = "no tenant runs HAMi's device plugin (no DaemonSet " + devicePluginNamespace + "/" + devicePluginDaemonSet +
	"): the count is then not the kubelet's. The local test environment has no kubelet and its " +
	"registrar writes the count (ci/testenv/README.md, differences)"

// TC-20: the kubelet's count of the devices HAMi's device plugin registered.
// The plugin lists deviceSplitCount devices per card and registers only
// nvidia.com/gpu (HAMi pkg/device-plugin/nvidiadevice/nvinternal/plugin/
// server.go:1135-1137, rm/devices.go:195-213@v2.10.0); the kubelet puts their
// number into both capacity and allocatable. A nvidia.com/gpumem capacity
// means something else writes the Node's status, as gpu-lab's registrar
// does where no plugin runs, and fights the plugin.
func (r *runner) tc20(ctx context.Context, t *caseT) error {
	tenants := t.lab().TenantNames()
	var with, without []string
	for _, tn := range tenants {
		_, err := t.client(tn).AppsV1().DaemonSets(devicePluginNamespace).Get(ctx, devicePluginDaemonSet, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			without = append(without, tn)
		case err != nil:
			return fmt.Errorf("tenant %s: read DaemonSet %s/%s: %w", tn, devicePluginNamespace, devicePluginDaemonSet, err)
		default:
			with = append(with, tn)
		}
	}
	if len(with) == 0 {
		return notApplicable{noDevicePlugin}
	}
	if len(without) > 0 {
		return fmt.Errorf("tenant(s) %s run HAMi's device plugin, tenant(s) %s do not (no DaemonSet %s/%s)",
			strings.Join(with, ", "), strings.Join(without, ", "), devicePluginNamespace, devicePluginDaemonSet)
	}
	return t.perTenant(func(tn string) error {
		nodes, err := t.client(tn).CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("tenant %s: list nodes: %w", tn, err)
		}
		matched, _, err := matchWorkers(r.cfg.Lab, tn, nodes.Items)
		if err != nil {
			return err
		}
		for _, m := range matched {
			want := int64(gpus.GPUCapacity(r.cfg.Lab, m.Worker))
			if err := pluginCount(m.Node, want); err != nil {
				return fmt.Errorf("tenant %s worker %s: %w", tn, m.Worker.Name, err)
			}
			t.step("tenant %s: node %s capacity = allocatable %s = %d (split count %d × %d cards), no %s capacity",
				tn, m.Node.Name, gpus.ResourceGPU, want, r.cfg.Lab.HAMi.SplitCount, len(m.Worker.Cards()), gpus.ResourceGPUMem)
		}
		return nil
	})
}

// pluginCount checks a Node as the kubelet leaves it with HAMi's device
// plugin: capacity and allocatable nvidia.com/gpu equal to want, and no
// nvidia.com/gpumem capacity.
func pluginCount(n *corev1.Node, want int64) error {
	var bad []string
	for _, f := range []struct {
		name string
		list corev1.ResourceList
	}{{"capacity", n.Status.Capacity}, {"allocatable", n.Status.Allocatable}} {
		q, ok := f.list[corev1.ResourceName(gpus.ResourceGPU)]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("%s %s absent, want %d", f.name, gpus.ResourceGPU, want))
		case q.CmpInt64(want) != 0:
			bad = append(bad, fmt.Sprintf("%s %s %s, want %d", f.name, gpus.ResourceGPU, q.String(), want))
		}
	}
	if q, ok := n.Status.Capacity[corev1.ResourceName(gpus.ResourceGPUMem)]; ok {
		bad = append(bad, fmt.Sprintf("capacity %s %s: HAMi's device plugin registers no such resource, so another writer sets "+
			"the Node's status", gpus.ResourceGPUMem, q.String()))
	}
	if len(bad) > 0 {
		return fmt.Errorf("node %s: %s", n.Name, strings.Join(bad, "; "))
	}
	return nil
}
