package stages

import (
	"context"
	"strings"
	"testing"

	kind "sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/kind/pkg/cluster"
)

// kind v0.33.0's wait for the control plane indexes the first line of
// kubectl's output unchecked (waitforready.go:122); under a Ctrl-C it
// panicked and took labctl up with it. The panic is the create's error.
func TestKindCreatePanicIsAnError(t *testing.T) {
	k := &KindProvider{create: func(string, ...cluster.CreateOption) error {
		var lines []string
		_ = strings.Fields(lines[0]) // what waitForReady does with no output
		return nil
	}}
	err := k.Create(context.Background(), &kind.Cluster{Name: "gpu-lab"}, "/nonexistent/kubeconfig")
	if err == nil || !strings.Contains(err.Error(), "kind create cluster gpu-lab: kind panicked: runtime error: index out of range") {
		t.Fatalf("err = %v, want the panic as the create's error", err)
	}
}
