package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/render"
)

// helm pipes the chart's manifests through `labctl internal hami-post-render`; the
// command puts the configuration file it is given into the chart's
// ConfigMap (recorded chart rendering in ci/render/testdata).
func TestHAMiPostRenderCommand(t *testing.T) {
	manifests, err := os.ReadFile("../../render/testdata/hami-chart-2.10.0/tenant-a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(t.TempDir(), "cfg.yaml")
	const cfg = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npodMaxBackoffSeconds: 7\n"
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := runRootIO(t, bytes.NewReader(manifests), &out, &errb,
		"internal", "hami-post-render", "--scheduler-config", cfgFile); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "podMaxBackoffSeconds: 7") || !strings.Contains(out.String(), render.AnnoSchedulerConfig) {
		t.Errorf("output lacks the configuration or its hash annotation:\n%.2000s", out.String())
	}
	if err := runRootIO(t, bytes.NewReader(manifests), &out, &errb, "internal", "hami-post-render"); err == nil ||
		!strings.Contains(err.Error(), "--scheduler-config is required") {
		t.Errorf("without --scheduler-config: err = %v", err)
	}
}
