package stages

import (
	"context"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// A cgroup v1 host is not refused: preflight says so, and every kubelet the
// stages render afterwards gets failCgroupV1: false — the management node's
// kind config and each tenant's kubelet-config patches.
func TestPreflightConfiguresKubeletsOnCgroupV1(t *testing.T) {
	for _, tt := range []struct {
		cgroup string
		v1     bool
	}{{"1", true}, {"2", false}} {
		t.Run("cgroup v"+tt.cgroup, func(t *testing.T) {
			e, d, _, _ := testEnv(t)
			d.images = map[string]bool{e.Lab.Versions.KindNodeImage: true, e.Lab.Versions.WorkerImage(): true}
			d.info = docker.DaemonInfo{Driver: "overlay2", CgroupVersion: tt.cgroup}
			notes, err := Preflight(context.Background(), e, "")
			if err != nil {
				t.Fatal(err)
			}
			if said := strings.Contains(strings.Join(notes, "\n"), "failCgroupV1: false"); said != tt.v1 {
				t.Errorf("notes %q mention failCgroupV1: %v, want %v", notes, said, tt.v1)
			}
			o := e.Reach.renderOptions(render.PlaceholderManagementAddress)
			kc, err := render.KindConfig(e.Lab, o)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(strings.Join(kc.KubeadmConfigPatches, "\n"), "failCgroupV1: false"); got != tt.v1 {
				t.Errorf("kind config patches %q: failCgroupV1 false = %v, want %v", kc.KubeadmConfigPatches, got, tt.v1)
			}
			tcp, err := render.TenantControlPlaneFor(e.Lab, e.Lab.Tenants[0].Name, o)
			if err != nil {
				t.Fatal(err)
			}
			got := false
			for _, p := range tcp.Spec.Kubernetes.Kubelet.ConfigurationJSONPatches {
				got = got || (p.Path == "/"+render.KubeletCgroupV1 && p.Value == false)
			}
			if got != tt.v1 {
				t.Errorf("tenant kubelet patches set failCgroupV1 false = %v, want %v", got, tt.v1)
			}
		})
	}
}
