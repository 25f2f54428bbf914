package stages

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/docker"
)

// TestWorkersStartWithKindsHostFlags: the workers stage asks the daemon
// what kind asks it and starts each worker with kind's additions for that
// host; on a plain host it adds nothing.
func TestWorkersStartWithKindsHostFlags(t *testing.T) {
	for _, tt := range []struct {
		name    string
		info    docker.DaemonInfo
		env     map[string]string
		want    []string
		notWant []string
	}{
		{"plain host", docker.DaemonInfo{Driver: "overlay2", DriverStatus: [][]string{{"Backing Filesystem", "extfs"}},
			SecurityOptions: []string{"name=seccomp,profile=default"}}, nil,
			nil, []string{"--userns=host", "--device", "/dev/mapper:/dev/mapper", "PROXY"}},
		{"userns-remap and zfs", docker.DaemonInfo{Driver: "zfs", SecurityOptions: []string{"name=apparmor", "name=userns"}}, nil,
			[]string{"--userns=host", "--volume /dev/mapper:/dev/mapper"}, []string{"/dev/fuse"}},
		{"rootless behind a proxy", docker.DaemonInfo{Driver: "overlay2", SecurityOptions: []string{"name=seccomp,profile=default",
			"name=rootless", "name=cgroupns"}},
			map[string]string{"HTTP_PROXY": "http://proxy:3128"},
			[]string{"--device /dev/fuse", "--env HTTP_PROXY=http://proxy:3128",
				"--env NO_PROXY=172.18.0.0/16,10.96.0.0/16,10.100.0.0/16,gpu-lab-control-plane," +
					"gpu-lab-tenant-a-worker,gpu-lab-tenant-b-worker,.svc,.svc.cluster,.svc.cluster.local"},
			[]string{"/dev/mapper", "--userns"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, _, _ := joiningEnv(t)
			d := e.Docker.(*fakeDocker)
			d.info = tt.info
			d.network.IPAM.Config = []docker.IPAMConfig{{Subnet: "172.18.0.0/16"}}
			e.Getenv = func(k string) string { return tt.env[k] }
			if _, err := (workersStage{}).Run(context.Background(), e); err != nil {
				t.Fatal(err)
			}
			if len(d.specs) != 2 {
				t.Fatalf("workers started: %d, want 2", len(d.specs))
			}
			spec := d.specs[slices.IndexFunc(d.specs, func(s docker.RunSpec) bool { return s.Name == "gpu-lab-tenant-a-worker" })]
			argv := strings.Join(docker.RunArgs(spec), " ")
			for _, w := range tt.want {
				if !strings.Contains(argv, w) {
					t.Errorf("docker %s\nlacks %q", argv, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(argv, w) {
					t.Errorf("docker %s\nhas %q", argv, w)
				}
			}
		})
	}
}
