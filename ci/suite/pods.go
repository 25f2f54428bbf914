package suite

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// gpuPod is what a case asks for; zero amounts are left out of the limits.
type gpuPod struct {
	name  string
	gpus  int
	memMB int
	cores int
	node  string // pin to this node ("" = any)
	// nodes pins to any of these nodes (TC-17), when node is "".
	nodes []string
	// cards pins to these registered card UUIDs (HAMi's
	// nvidia.com/use-gpuuuid), so cases on other cards of the worker run
	// beside this one undisturbed.
	cards       []string
	annotations map[string]string
	// image and command replace the suite's image and its entrypoint
	// (TC-18 prints its environment); the image is asked IfNotPresent.
	image   string
	command []string
	// viaWebhook leaves schedulerName empty so HAMi's webhook must set it
	// (TC-04). Other pods name hami-scheduler themselves, so a broken
	// webhook shows in TC-04 alone rather than in every case.
	viaWebhook bool
}

// noNode is a node name no platform has: TC-04's pod pins to it so it is
// never scheduled and holds no GPU capacity while other cases run.
const noNode = "gpu-lab-suite-no-such-node"

func (t *caseT) podObject(tenant, ns string, p gpuPod) *corev1.Pod {
	zero := int64(0)
	no := false
	annotations := map[string]string{}
	for k, v := range p.annotations {
		annotations[k] = v
	}
	if len(p.cards) > 0 {
		// HAMi v2.10.0 matches each comma-separated UUID exactly
		// (device.CheckUUID, pkg/device/devices.go; the key is GPUUseUUID
		// in pkg/device/nvidia/device.go).
		annotations[gpus.AnnoUseGPUUUID] = strings.Join(p.cards, ",")
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: ns, Labels: t.labels(tenant), Annotations: annotations},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name:      "main",
				Image:     t.r.cfg.Image,
				Resources: corev1.ResourceRequirements{Limits: p.limits()},
			}},
			TerminationGracePeriodSeconds: &zero,
			AutomountServiceAccountToken:  &no,
			Affinity:                      p.affinity(),
		},
	}
	if p.image != "" {
		c := &pod.Spec.Containers[0]
		c.Image, c.Command, c.ImagePullPolicy = p.image, p.command, corev1.PullIfNotPresent
	}
	if !p.viaWebhook {
		pod.Spec.SchedulerName = gpus.SchedulerName
	}
	return pod
}

// limits are the pod's GPU limits, an amount of 0 left out.
func (p gpuPod) limits() corev1.ResourceList {
	limits := corev1.ResourceList{}
	set := func(name string, v int) {
		if v > 0 {
			limits[corev1.ResourceName(name)] = resource.MustParse(strconv.Itoa(v))
		}
	}
	set(gpus.ResourceGPU, p.gpus)
	set(gpus.ResourceGPUMem, p.memMB)
	set(gpus.ResourceGPUCores, p.cores)
	return limits
}

// affinity pins the pod to its node, else to any of its nodes; nil when it
// names none.
func (p gpuPod) affinity() *corev1.Affinity {
	nodes := p.nodes
	if p.node != "" {
		nodes = []string{p.node}
	}
	if len(nodes) == 0 {
		return nil
	}
	// matchFields on the name works whatever labels the node carries.
	// The API server allows one value per metadata.name field
	// selector, so several nodes are several terms (which are ORed).
	var terms []corev1.NodeSelectorTerm
	for _, n := range nodes {
		terms = append(terms, corev1.NodeSelectorTerm{
			MatchFields: []corev1.NodeSelectorRequirement{
				{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{n}},
			},
		})
	}
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms},
	}}
}

// createPod creates a GPU pod in the case's namespace of the tenant.
func (t *caseT) createPod(ctx context.Context, tenant string, p gpuPod) (*corev1.Pod, error) {
	ns, err := t.namespace(ctx, tenant)
	if err != nil {
		return nil, err
	}
	got, err := t.client(tenant).CoreV1().Pods(ns).Create(ctx, t.podObject(tenant, ns, p), metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("tenant %s: create pod %s/%s: %w", tenant, ns, p.name, err)
	}
	return got, nil
}

// describeAsk is how a pod's request reads in steps.
func (p gpuPod) describeAsk() string {
	s := fmt.Sprintf("gpu %d", p.gpus)
	if p.memMB > 0 {
		s += fmt.Sprintf(", %d MB", p.memMB)
	}
	if p.cores > 0 {
		s += fmt.Sprintf(", %d%% cores", p.cores)
	}
	if len(p.cards) > 0 {
		s += fmt.Sprintf(", %s=%s", gpus.AnnoUseGPUUUID, strings.Join(p.cards, ","))
	}
	keys := make([]string, 0, len(p.annotations))
	for k := range p.annotations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s += fmt.Sprintf(", %s=%s", k, p.annotations[k])
	}
	return s
}

// deletePod deletes a pod without grace and waits until it is gone, so
// the capacity it held is free in the API (HAMi may still lag, see TC-13).
func (t *caseT) deletePod(ctx context.Context, ref podRef) error {
	zero := int64(0)
	err := t.client(ref.tenant).CoreV1().Pods(ref.namespace).Delete(ctx, ref.name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("tenant %s: delete pod %s: %w", ref.tenant, ref, err)
	}
	start := time.Now()
	if err := t.waitGone(ctx, ref); err != nil {
		return err
	}
	t.step("pod %s deleted (gone after %s)", ref, time.Since(start).Round(time.Millisecond))
	return nil
}

// deleteCasePods deletes every pod a case created in a tenant and waits
// until they are gone.
func (t *caseT) deleteCasePods(ctx context.Context, tenant, caseID string) error {
	cs := t.client(tenant)
	pods, err := cs.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
		LabelSelector: labelRun + "=" + t.r.runID + "," + labelCase + "=" + caseID,
	})
	if err != nil {
		return fmt.Errorf("tenant %s: list pods of %s: %w", tenant, caseID, err)
	}
	for _, p := range pods.Items {
		if err := t.deletePod(ctx, podRef{tenant, p.Namespace, p.Name}); err != nil {
			return err
		}
	}
	return nil
}
