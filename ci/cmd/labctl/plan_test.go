package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// run executes a fresh command in-process and returns stdout, stderr and the error.
// run builds a command on buffers, as newRootCommand builds it on the
// process's streams, runs it with args and returns what it wrote.
func run(t *testing.T, newCommand func(streams) *cobra.Command, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := newCommand(streams{in: strings.NewReader(""), out: &out, errOut: &errb})
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errb.String(), err
}

func TestPlanPrintsSeedLab(t *testing.T) {
	out, _, err := run(t, newPlanCommand)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"tenant tenant-a", "tenant tenant-b",
		"gpu 0: A100-80GB, 81920 MB, type NVIDIA-A100-SXM4-80GB",
		"gpu 0: L4, 24576 MB, type NVIDIA-L4", "gpu 1: L4, 24576 MB, type NVIDIA-L4",
		"31443", "31132", "31444", "31133",
		"split count        10",
		"kind module                   v0.33.0",
		"worker image                  kindest/node:v1.36.4@sha256:",
		"HAMi chart                    2.10.0",
		"node gpu-lab-tenant-b-worker, nvidia.com/gpu 20 in status capacity and allocatable",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "24576 MB"); n != 2 {
		t.Errorf("%d L4 cards printed, want 2", n)
	}
}

func TestPlanWritesEveryManifest(t *testing.T) {
	dir := t.TempDir()
	out, _, err := run(t, newPlanCommand, "-o", dir, "--management-address", "10.1.2.3", "--cert-san", "docker", "--publish-node-ports")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "12 manifests written to "+dir) {
		t.Errorf("output: %s", out)
	}
	tcp, err := os.ReadFile(filepath.Join(dir, "management", "tenant-b", "tenant-control-plane.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tcp), "address: 10.1.2.3") || !strings.Contains(string(tcp), "- docker") {
		t.Errorf("flags did not reach the TenantControlPlane:\n%s", tcp)
	}
	// The nvml-mock manifest holds each worker's cards for the mock NVML
	// library: tenant-b's one worker, two L4s.
	mock, err := os.ReadFile(filepath.Join(dir, "tenants", "tenant-b", "nvml-mock.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(mock), "\n---\n")
	var cm struct {
		Kind string            `json:"kind"`
		Data map[string]string `json:"data"`
	}
	if err := yaml.Unmarshal([]byte(docs[0]), &cm); err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Devices []struct {
			Name string `json:"name"`
		} `json:"devices"`
	}
	if err := yaml.Unmarshal([]byte(cm.Data["gpu-lab-tenant-b-worker.yaml"]), &cfg); err != nil {
		t.Fatal(err)
	}
	if cm.Kind != "ConfigMap" || len(cfg.Devices) != 2 || cfg.Devices[0].Name != "NVIDIA-L4" {
		t.Errorf("nvml-mock manifest: want a ConfigMap with two NVIDIA-L4 for gpu-lab-tenant-b-worker:\n%s", mock)
	}
}

func TestPlanBadInputs(t *testing.T) {
	if _, _, err := run(t, newPlanCommand, "-f", filepath.Join(t.TempDir(), "missing.yaml")); err == nil ||
		!strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing file: %v", err)
	}
	if _, _, err := run(t, newPlanCommand, "-o", t.TempDir(), "--management-address", "fc00::2"); err == nil ||
		!strings.Contains(err.Error(), "IPv4") {
		t.Errorf("IPv6 management address: %v", err)
	}
}
