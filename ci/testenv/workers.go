package testenv

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/gpus/deviceplugin"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// KWOK manages the nodes carrying this annotation (and only those).
const (
	kwokNodeAnnotation = "kwok.x-k8s.io/node"
	kwokNodeValue      = "fake"
)

// nodeName is the Node of a lab worker in the local environment.
func nodeName(tenant, worker string) string { return tenant + "-" + worker }

// createWorkers creates a Node per lab worker, registers its GPUs with the
// same product code the real lab runs (deviceplugin.RegisterNode), and starts the
// product bind finalizer for the tenant.
func (t *tenant) createWorkers(ctx context.Context) error {
	for _, w := range t.spec.Workers {
		if err := t.createNode(ctx, w); err != nil {
			return err
		}
	}
	for _, w := range t.spec.Workers {
		if err := deviceplugin.RegisterNode(ctx, t.client, t.env.lab, t.name(), w, nodeName(t.name(), w.Name)); err != nil {
			return err
		}
	}
	fin := &deviceplugin.Finalizer{Client: t.client, Log: t.env.log.With("tenant", t.name(), "component", "bind-finalizer")}
	// Run as a component of its own so a fault test can suspend or kill it
	// (faults.go) and Health names it when it stops.
	t.env.runInProcess(t.component(ComponentFinalizer), func(ctx context.Context) error {
		err := fin.Run(ctx)
		if err != nil {
			t.env.log.Error("bind finalizer stopped", "tenant", t.name(), "err", err)
		}
		return err
	})
	return nil
}

// createNode creates the worker's Node with the capacity a kubelet would
// report (KWOK keeps existing capacity when it initialises a node) and with
// the GPU registration already on it: the annotation, the label and the four
// GPU resources the registrar writes (gpus.Advertised through
// deviceplugin.Resources). HAMi registers a node's
// cards when the Node is added, and otherwise only on its 15 s ticker
// (RegisterFromNodeAnnotations, pkg/scheduler/scheduler.go@v2.10.0): a Node
// that arrives with its registration is registered at once, one annotated
// later waits for the tick. deviceplugin.RegisterNode then re-asserts the same
// values.
func (t *tenant) createNode(ctx context.Context, w lab.Worker) error {
	name := nodeName(t.name(), w.Name)
	res := deviceplugin.Resources(gpus.Advertised(t.env.lab, t.name(), w))
	res[corev1.ResourceCPU] = resource.MustParse("32")
	res[corev1.ResourceMemory] = resource.MustParse("256Gi")
	res[corev1.ResourcePods] = resource.MustParse("110")
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Annotations: map[string]string{
				kwokNodeAnnotation: kwokNodeValue,
				gpus.AnnoRegister:  gpus.EncodeRegister(gpus.Devices(t.env.lab, t.name(), w)),
			},
			Labels: map[string]string{
				"kubernetes.io/hostname": name,
				"kubernetes.io/os":       "linux",
				"kubernetes.io/arch":     "amd64",
				"type":                   "kwok",
				gpus.LabelGPUNode:        gpus.LabelGPUOn,
			},
		},
		Status: corev1.NodeStatus{Capacity: res, Allocatable: res.DeepCopy()},
	}
	if _, err := t.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create node %s: %w", name, err)
	}
	return nil
}
