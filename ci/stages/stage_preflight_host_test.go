package stages

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/stages/internal/preflight"
)

// The privileged probe runs from the node image once it is on the daemon;
// each failure stops preflight with the host's problem, before any stage.
func TestPreflightNamesHostsTheLabCannotRunOn(t *testing.T) {
	refused := fmt.Errorf("%w (…): run the lab on a Docker daemon that runs as root", docker.ErrPrivilegedRefused)
	for _, tt := range []struct {
		name   string
		host   *hostProbeResult
		only   string
		errHas string // empty: passes
		probed bool
	}{
		{"a host that can", nil, "", "", true},
		{"privileged refused", &hostProbeResult{err: refused}, "", "runs as root", true},
		{"low inotify limits", &hostProbeResult{probe: docker.HostProbe{MaxUserWatches: 8192, MaxUserInstances: 128, FreeBytes: 100 << 30}}, "",
			"sysctl -w", true},
		{"no room", &hostProbeResult{probe: docker.HostProbe{MaxUserWatches: preflight.MinInotifyWatches,
			MaxUserInstances: preflight.MinInotifyInstances, FreeBytes: 1 << 30}}, "", "1.0 GiB free", true},
		{"only a stage that starts no node: not probed", &hostProbeResult{err: refused}, stageHAMi, "", false},
		{"userns-remap: probed with --userns=host, as kind's nodes run", nil, "", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, d, k, _ := testEnv(t)
			d.images = map[string]bool{e.Lab.Versions.KindNodeImage: true, e.Lab.Versions.WorkerImage(): true}
			d.info = docker.DaemonInfo{CgroupVersion: "2"}
			probe := "probe " + e.Lab.Versions.KindNodeImage
			if strings.HasPrefix(tt.name, "userns-remap") {
				d.info.SecurityOptions = []string{"name=seccomp,profile=default", "name=userns"}
				probe += " --userns=host"
			}
			d.host = tt.host
			_, err := Preflight(context.Background(), e, tt.only)
			if tt.errHas == "" && err != nil {
				t.Fatal(err)
			}
			if tt.errHas != "" && (err == nil || !strings.Contains(err.Error(), tt.errHas) || !strings.HasPrefix(err.Error(), "preflight:")) {
				t.Fatalf("err = %v, want %q", err, tt.errHas)
			}
			if tt.host != nil && tt.host.err != nil && tt.errHas != "" && !errors.Is(err, docker.ErrPrivilegedRefused) {
				t.Errorf("err = %v, want it to wrap ErrPrivilegedRefused", err)
			}
			if got := slices.Contains(d.calls, probe); got != tt.probed {
				t.Errorf("calls %v: %q = %v, want %v", d.calls, probe, got, tt.probed)
			}
			if tt.probed && slices.Index(d.calls, probe) < slices.Index(d.calls, "ensure "+e.Lab.Versions.KindNodeImage) {
				t.Errorf("probed before the image was ensured: %v", d.calls)
			}
			if len(k.calls) != 0 {
				t.Errorf("kind called during preflight: %v", k.calls)
			}
		})
	}
}
