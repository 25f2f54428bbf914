package preflight

import (
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// TestHostProblems: each host the lab cannot run on is named with what to
// change; a cgroup v1 host is not refused but told what the lab sets.
func TestHostProblems(t *testing.T) {
	need := Need{Bytes: 20 << 30, Basis: "test basis"}
	ok := docker.HostProbe{MaxUserWatches: 524288, MaxUserInstances: 512, FreeBytes: 30 << 30}
	with := func(f func(*docker.HostProbe)) *docker.HostProbe { p := ok; f(&p); return &p }
	for _, tt := range []struct {
		name     string
		facts    HostFacts
		problems []string // one substring per problem, in order
		noteHas  string
	}{
		{"cgroup v2, kind's inotify values, room", HostFacts{CgroupVersion: "2", Probe: &ok}, nil, "30.0 GiB free"},
		{"cgroup v1: told, not refused", HostFacts{CgroupVersion: "1", Probe: &ok}, nil, "failCgroupV1: false"},
		{"unknown cgroup version", HostFacts{CgroupVersion: "", Probe: &ok}, nil, "assuming cgroup v2"},
		{"no node stage: nothing probed", HostFacts{CgroupVersion: "2"}, nil, "cgroup v2"},
		// This machine's values (testdata of ci/docker: 192530, 128).
		{"this machine's inotify limits",
			HostFacts{CgroupVersion: "1", Probe: with(func(p *docker.HostProbe) { p.MaxUserWatches, p.MaxUserInstances = 192530, 128 })},
			[]string{"sudo sysctl -w fs.inotify.max_user_watches=524288 fs.inotify.max_user_instances=512"}, ""},
		{"watches only", HostFacts{CgroupVersion: "2", Probe: with(func(p *docker.HostProbe) { p.MaxUserWatches = 8192 })},
			[]string{"fs.inotify.max_user_watches=524288 fs.inotify.max_user_instances=512"}, ""},
		{"higher instances are kept",
			HostFacts{CgroupVersion: "2", Probe: with(func(p *docker.HostProbe) { p.MaxUserWatches, p.MaxUserInstances = 8192, 8192 })},
			[]string{"fs.inotify.max_user_instances=8192"}, ""},
		{"disk", HostFacts{CgroupVersion: "2", Probe: with(func(p *docker.HostProbe) { p.FreeBytes = 5 << 30 })},
			[]string{"5.0 GiB free where the daemon stores images and containers, the lab needs about 20.0 GiB (test basis)"}, ""},
		{"both", HostFacts{CgroupVersion: "2", Probe: with(func(p *docker.HostProbe) { p.FreeBytes, p.MaxUserInstances = 1, 128 })},
			[]string{"inotify", "data-root"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			problems, notes := HostProblems(tt.facts, need)
			if len(problems) != len(tt.problems) {
				t.Fatalf("problems = %q, want %d", problems, len(tt.problems))
			}
			for i, want := range tt.problems {
				if !strings.Contains(problems[i], want) {
					t.Errorf("problem %q does not say %q", problems[i], want)
				}
			}
			if tt.noteHas != "" && !strings.Contains(strings.Join(notes, "\n"), tt.noteHas) {
				t.Errorf("notes %q do not say %q", notes, tt.noteHas)
			}
		})
	}
}

// TestDiskNeed: without a bundle the floor; with one the daemon's sizes,
// twice in every node that runs each image.
func TestDiskNeed(t *testing.T) {
	l := lab.Default()
	workers := 0
	for _, tn := range l.Tenants {
		workers += len(tn.Workers)
	}
	list := []images.Image{
		{Ref: "m", Place: images.Management},
		{Ref: "w", Place: images.Worker},
		{Ref: "node", Place: images.OnDaemon}, // on the daemon already: not counted
		{Ref: "unsized", Place: images.Worker},
		{Ref: "m", Place: images.Worker, Preloaded: "node"}, // inside the worker's node image: not imported
		{Ref: "w", Place: images.Worker, Stage: "another"},  // the same image again: imported once
	}
	const gb = 1 << 30
	for _, tt := range []struct {
		name     string
		sizes    map[string]int64
		want     uint64
		basisHas string
	}{
		{"no bundle", nil, diskFloor, "order-of-magnitude floor"},
		{"small bundle: the floor", map[string]int64{"m": 1, "w": 1, "node": 1}, diskFloor, "raised to the 10.0 GiB floor"},
		{"large bundle", map[string]int64{"m": 3 * gb, "w": 4 * gb, "node": 100 * gb},
			2*3*gb + 2*4*gb*uint64(workers), "2 bundled images"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := DiskNeed(l, list, tt.sizes)
			if got.Bytes != tt.want || !strings.Contains(got.Basis, tt.basisHas) {
				t.Fatalf("DiskNeed = %d (%s), want %d (%q)", got.Bytes, got.Basis, tt.want, tt.basisHas)
			}
		})
	}
}
