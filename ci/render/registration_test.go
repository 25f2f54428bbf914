package render

import (
	"encoding/json"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

func TestWorkerRegistrationSeedLab(t *testing.T) {
	l := testLabs(t)["default"]
	for _, tc := range []struct {
		tenant   string
		cards    int
		memMB    int
		typ      string
		capacity int64
	}{
		{"tenant-a", 1, 81920, "NVIDIA-A100-SXM4-80GB", 10},
		{"tenant-b", 2, 24576, "NVIDIA-L4", 20},
	} {
		r, err := WorkerRegistration(l, tc.tenant, "worker")
		if err != nil {
			t.Fatal(err)
		}
		devs, err := gpus.DecodeRegister(r.Annotations[gpus.AnnoRegister])
		if err != nil {
			t.Fatal(err)
		}
		if len(devs) != tc.cards {
			t.Fatalf("%s: %d cards registered, want %d", tc.tenant, len(devs), tc.cards)
		}
		for i, d := range devs {
			if d.Devmem != tc.memMB || d.Type != tc.typ || !d.Health || d.Index != i || d.Count != l.HAMi.SplitCount {
				t.Errorf("%s card %d: %+v", tc.tenant, i, d)
			}
		}
		if q := r.Capacity[gpus.ResourceGPU]; q.Value() != tc.capacity {
			t.Errorf("%s: capacity %s, want %d", tc.tenant, q.String(), tc.capacity)
		}
		if r.NodeName != "gpu-lab-"+tc.tenant+"-worker" || r.Labels[gpus.LabelGPUNode] != gpus.LabelGPUOn {
			t.Errorf("%s: node %q labels %v", tc.tenant, r.NodeName, r.Labels)
		}
		var patch struct {
			Status struct {
				Capacity    map[string]string `json:"capacity"`
				Allocatable map[string]string `json:"allocatable"`
			} `json:"status"`
		}
		sp, _ := r.statusPatch()
		if err := json.Unmarshal(sp, &patch); err != nil || patch.Status.Capacity[gpus.ResourceGPU] == "" ||
			patch.Status.Allocatable[gpus.ResourceGPU] != patch.Status.Capacity[gpus.ResourceGPU] {
			t.Errorf("%s: status patch %s (%v), want capacity and allocatable", tc.tenant, sp, err)
		}
		var meta struct {
			Metadata struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		}
		mp, _ := r.metadataPatch()
		if err := json.Unmarshal(mp, &meta); err != nil || meta.Metadata.Annotations[gpus.AnnoRegister] != r.Annotations[gpus.AnnoRegister] {
			t.Errorf("%s: metadata patch %s (%v)", tc.tenant, mp, err)
		}
	}
	if _, err := WorkerRegistration(l, "tenant-a", "nope"); err == nil {
		t.Error("unknown worker: no error")
	}
}
