package stages

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

func TestPreflightImages(t *testing.T) {
	l := lab.Default()
	node, worker := l.Versions.KindNodeImage, l.Versions.WorkerImage()
	tests := []struct {
		only string
		want []string
	}{
		{"", []string{node, worker}},
		{stageCluster, []string{node}},
		{stageWorkers, []string{worker}},
		{stageHAMi, nil},
	}
	for _, tt := range tests {
		if got := preflightImages(l, tt.only); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("PreflightImages(only=%q) = %v, want %v", tt.only, got, tt.want)
		}
	}
}

func TestPreflightStopsAtTheFirstMissingImage(t *testing.T) {
	e, d, k, _ := testEnv(t)
	d.pullErr = docker.ErrNoRegistry
	_, err := Preflight(context.Background(), e, "")
	if !errors.Is(err, docker.ErrNoRegistry) || !strings.HasPrefix(err.Error(), "preflight:") {
		t.Fatalf("err = %v", err)
	}
	if len(d.calls) != 1 || !strings.HasPrefix(d.calls[0], "ensure kindest/node:") {
		t.Errorf("calls = %v, want one check of the kind node image", d.calls)
	}
	if len(k.calls) != 0 {
		t.Errorf("kind called during preflight: %v", k.calls)
	}
}
