package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// The in-cluster finalizer also keeps its tenant's GPUs registered: started
// against a tenant whose worker has no registration, it writes it.
func TestFinalizerCommandRegistersTheTenantsWorkers(t *testing.T) {
	l := lab.Default()
	y, err := yaml.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	labFile := filepath.Join(t.TempDir(), "lab.yaml")
	if err := os.WriteFile(labFile, y, 0o644); err != nil {
		t.Fatal(err)
	}
	node := l.NodeName("tenant-b", "worker")
	// The simple clientset: NewClientset's tracker builds a REST mapper of
	// the whole scheme on every call; nothing here applies server-side.
	c := fake.NewSimpleClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}})
	// The minute only ends a finalizer that never registers (it takes
	// milliseconds): a loaded machine must not fail the test by slowness.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- runFinalizer(ctx, c, labFile, "tenant-b", slog.New(slog.DiscardHandler)) }()
	deadline := time.Now().Add(time.Minute)
	for {
		n, err := c.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
		if err == nil && n.Annotations[gpus.AnnoRegister] != "" {
			devs, err := gpus.DecodeRegister(n.Annotations[gpus.AnnoRegister])
			if err != nil || len(devs) != 2 {
				t.Fatalf("registered %v, %v; want tenant-b's two L4", devs, err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the finalizer did not register the worker's GPUs")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil && ctx.Err() == nil {
		t.Fatalf("runFinalizer: %v", err)
	}
	if err := runFinalizer(context.Background(), c, labFile, "tenant-z", slog.New(slog.DiscardHandler)); err == nil {
		t.Fatal("unknown tenant: want an error")
	}
}
