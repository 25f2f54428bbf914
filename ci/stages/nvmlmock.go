package stages

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// Before HAMi's chart is installed, the hami stage makes every worker a GPU
// node for HAMi's own device plugin: the label the chart's DaemonSet
// selects (gpu=on, charts/hami/values.yaml:419-420@v2.10.0), and the mock
// NVML library with the worker's cards under the driver root the values
// name (render.NVMLMockObjects), ready before the chart's DaemonSet starts:
// its driver-root hostPath has type Directory, so a pod on a node without
// it would not start (daemonsetnvidia.yaml:232-236@v2.10.0).

// labctlPath is the labctl binary helm runs as HAMi's post-renderer.
func labctlPath(e *Env) string {
	if e.LabctlBinary != "" {
		return e.LabctlBinary
	}
	p, err := os.Executable()
	if err != nil {
		return "labctl"
	}
	return p
}

// gpuNodeSteps are what the hami stage does to a tenant's workers: label
// them, then apply the nvml-mock objects and wait for them on every worker.
func gpuNodeSteps(e *Env, t lab.Tenant, tc func() (*Clients, error)) ([]steps.Step, error) {
	objs, err := render.NVMLMockObjects(e.Lab, t.Name, render.NVMLMockImage)
	if err != nil {
		return nil, err
	}
	var nodes, names []string
	for _, w := range t.Workers {
		nodes = append(nodes, e.Lab.NodeName(t.Name, w.Name))
	}
	for _, o := range objs {
		u, err := kube.ToUnstructured(o)
		if err != nil {
			return nil, err
		}
		names = append(names, kube.ObjectName(u))
	}
	return []steps.Step{
		steps.Do(func(ctx context.Context) error { return labelGPUNodes(ctx, e, tc, t) },
			fmt.Sprintf("tenant %s: label Node(s) %s %s=%s", t.Name, strings.Join(nodes, ", "), gpus.LabelGPUNode, gpus.LabelGPUOn)),
		steps.Do(func(ctx context.Context) error { return applyNVMLMock(ctx, e, tc, t) },
			fmt.Sprintf("tenant %s: apply %s (image %s: the mock NVML library and each worker's cards into %s), "+
				"wait until ready on %d worker(s)",
				t.Name, strings.Join(names, ", "), render.NVMLMockImage, render.NVMLMockDriverRoot, len(t.Workers))),
	}, nil
}

// labelGPUNodes labels a tenant's workers as GPU nodes.
func labelGPUNodes(ctx context.Context, e *Env, clients func() (*Clients, error), t lab.Tenant) error {
	tc, err := clients()
	if err != nil {
		return err
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{gpus.LabelGPUNode: gpus.LabelGPUOn}}})
	if err != nil {
		return fail(stageHAMi, "label patch", "", err)
	}
	for _, w := range t.Workers {
		node := e.Lab.NodeName(t.Name, w.Name)
		if _, err := tc.Kube.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return fail(stageHAMi, "Node "+node+" in tenant "+t.Name, "labelling "+gpus.LabelGPUNode+"="+gpus.LabelGPUOn,
				fmt.Errorf("label Node %s: %w", node, err))
		}
	}
	return nil
}

// applyNVMLMock applies the nvml-mock objects of a tenant and waits for
// them on every worker.
func applyNVMLMock(ctx context.Context, e *Env, clients func() (*Clients, error), t lab.Tenant) error {
	tc, err := clients()
	if err != nil {
		return err
	}
	objs, err := render.NVMLMockObjects(e.Lab, t.Name, render.NVMLMockImage)
	if err != nil {
		return fail(stageHAMi, "nvml-mock objects of tenant "+t.Name, "", err)
	}
	if err := tc.serverSideApplier().ApplyAll(ctx, objs...); err != nil {
		return fail(stageHAMi, "nvml-mock in tenant "+t.Name, "apply", err)
	}
	what := "DaemonSet " + render.HAMiNamespace + "/" + render.NVMLMockName + " in tenant " + t.Name
	cond, err := e.wait(ctx, e.Timeouts.Rollout, what, func(ctx context.Context) (bool, string, error) {
		return daemonSetOnWorkers(ctx, tc, render.HAMiNamespace, render.NVMLMockName, len(t.Workers))
	})
	if err != nil {
		return fail(stageHAMi, what, cond+" (its init container install logs what it copied, or why not)", err)
	}
	return nil
}

// gpuNodesLabelled counts the tenant's workers labelled GPU nodes.
func gpuNodesLabelled(ctx context.Context, e *Env, tc *Clients, t lab.Tenant) int {
	n := 0
	for _, w := range t.Workers {
		node, err := tc.Kube.CoreV1().Nodes().Get(ctx, e.Lab.NodeName(t.Name, w.Name), metav1.GetOptions{})
		if err == nil && node.Labels[gpus.LabelGPUNode] == gpus.LabelGPUOn {
			n++
		}
	}
	return n
}

// gpuNodesReady tells whether a tenant's workers are labelled and the
// nvml-mock DaemonSet is ready on all of them, naming what is not.
func gpuNodesReady(ctx context.Context, e *Env, tc *Clients, t lab.Tenant) (bool, string, error) {
	for _, w := range t.Workers {
		node := e.Lab.NodeName(t.Name, w.Name)
		n, err := tc.Kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return false, "", fmt.Errorf("read Node %s in tenant %s: %w", node, t.Name, err)
		}
		if n.Labels[gpus.LabelGPUNode] != gpus.LabelGPUOn {
			return false, fmt.Sprintf("Node %s lacks label %s=%s", node, gpus.LabelGPUNode, gpus.LabelGPUOn), nil
		}
	}
	return daemonSetOnWorkers(ctx, tc, render.HAMiNamespace, render.NVMLMockName, len(t.Workers))
}
