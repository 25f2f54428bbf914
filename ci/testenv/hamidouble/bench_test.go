package hamidouble

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus/deviceplugin"
)

// BenchmarkScheduleCycle measures one GPU pod's Filter + Bind over HTTP plus
// the product finalizer's finishing step, on a fake clientset.
func BenchmarkScheduleCycle(b *testing.B) {
	e := newEnv(b, Config{})
	small := limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "1", "nvidia.com/gpucores", "0")
	for i := 0; b.Loop(); i++ {
		p := e.gpuPod(fmt.Sprintf("p%d", i), nodeB, small, nil)
		if _, errText := e.schedule(p, nodeB); errText != "" {
			b.Fatal(errText)
		}
		if err := deviceplugin.FinishBind(e.ctx, e.c, e.pod(p.Name)); err != nil {
			b.Fatal(err)
		}
		// Free the card again so the loop never runs out of slots.
		_ = e.c.CoreV1().Pods("ns").Delete(e.ctx, p.Name, metav1.DeleteOptions{})
		e.d.forget(p.UID)
	}
}

func BenchmarkFitNode(b *testing.B) {
	n := l4Node()
	req := slice(1, 1000, 10)
	for b.Loop() {
		fitNode(n, req, Faults{})
	}
}
