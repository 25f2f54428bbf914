package owner

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

func node(name, id string) docker.Container {
	c := docker.Container{ID: id, Name: "/" + name}
	c.Config.Labels = map[string]string{KindClusterLabel: "gpu-lab"}
	return c
}

func TestKindClusterOwnership(t *testing.T) {
	ours := Record{ID: "owner1", KindCluster: "gpu-lab", KindNodes: map[string]string{"gpu-lab-control-plane": "aaa"}}
	for _, tc := range []struct {
		name      string
		rec       Record
		haveRec   bool
		nodes     []docker.Container
		wantOwned bool
		// wantWhy is in the refusal; "" means no refusal.
		wantWhy string
	}{
		{"absent, no record", Record{}, false, nil, false, ""},
		{"absent, recorded earlier", ours, true, nil, false, ""},
		{"ours", ours, true, []docker.Container{node("gpu-lab-control-plane", "aaa")}, true, ""},
		{"foreign, no record (name: kind, another checkout)", Record{}, false, []docker.Container{node("gpu-lab-control-plane", "bbb")}, false,
			"the state dir has no owner record"},
		{"foreign, record without a cluster", Record{ID: "owner1"}, true, []docker.Container{node("gpu-lab-control-plane", "bbb")}, false,
			"records no kind cluster of that name"},
		{"foreign, recorded cluster of another name",
			Record{ID: "owner1", KindCluster: "other", KindNodes: map[string]string{"gpu-lab-control-plane": "bbb"}}, true,
			[]docker.Container{node("gpu-lab-control-plane", "bbb")}, false, "records no kind cluster of that name"},
		{"recreated under the same name by someone else", ours, true, []docker.Container{node("gpu-lab-control-plane", "bbb")}, false,
			"node container gpu-lab-control-plane (ID bbb) is not one the state dir recorded"},
		{"a node kind counts that we did not make", ours, true, []docker.Container{node("gpu-lab-control-plane", "aaa"),
			node("gpu-lab-worker", "ccc")}, false, "node container gpu-lab-worker"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			owned, err := KindCluster(tc.rec, tc.haveRec, state.Dir("/s"), "gpu-lab", tc.nodes)
			if owned != tc.wantOwned {
				t.Errorf("owned = %v, want %v", owned, tc.wantOwned)
			}
			if tc.wantWhy == "" {
				if err != nil {
					t.Errorf("err = %v, want none", err)
				}
				return
			}
			if !errors.Is(err, ErrNotOwned) {
				t.Fatalf("err = %v, want ErrNotOwned", err)
			}
			for _, part := range []string{"kind cluster gpu-lab", "/s", tc.wantWhy, "another lab name", "--state-dir",
				"kind delete cluster --name gpu-lab"} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("refusal %q lacks %q", err, part)
				}
			}
		})
	}
}

func TestWorkerOwnership(t *testing.T) {
	rec := Record{ID: "owner1"}
	labels := func(kv ...string) docker.Container {
		c := docker.Container{Name: "/gpu-lab-tenant-a-worker"}
		c.Config.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			c.Config.Labels[kv[i]] = kv[i+1]
		}
		return c
	}
	mine := []string{"gpu-lab.dev/lab", "gpu-lab", "tenant.clastix.io", "tenant-a", Label, "owner1"}
	for _, tc := range []struct {
		name    string
		haveRec bool
		c       docker.Container
		wantBad string // "" = may be used
	}{
		{"ours", true, labels(mine...), ""},
		{"no labels (someone's container)", true, labels(), "gpu-lab.dev/lab missing"},
		{"kind's management node (tenant control, worker plane)", true, labels(KindClusterLabel, "gpu-lab", "io.x-k8s.kind.role",
			"control-plane"), "tenant.clastix.io missing"},
		{"another tenant's worker (a/b-c against a-b/c)", true, labels("gpu-lab.dev/lab", "gpu-lab", "tenant.clastix.io", "a-b", Label, "owner1"),
			"tenant.clastix.io=a-b, want tenant-a"},
		{"same lab name, another state dir", true, labels("gpu-lab.dev/lab", "gpu-lab", "tenant.clastix.io", "tenant-a", Label, "owner2"),
			Label + "=owner2, want owner1"},
		{"another lab", true, labels("gpu-lab.dev/lab", "other", "tenant.clastix.io", "tenant-a", Label, "owner1"),
			"gpu-lab.dev/lab=other, want gpu-lab"},
		{"labelled before owner IDs existed", true, labels("gpu-lab.dev/lab", "gpu-lab", "tenant.clastix.io", "tenant-a"), Label + " missing"},
		{"state dir without a record", false, labels(mine...), "the state dir has no owner record"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Worker(rec, tc.haveRec, state.Dir("/s"), "gpu-lab", "tenant-a", tc.c)
			if tc.wantBad == "" {
				if err != nil {
					t.Errorf("err = %v, want none", err)
				}
				return
			}
			if !errors.Is(err, ErrNotOwned) {
				t.Fatalf("err = %v, want ErrNotOwned", err)
			}
			for _, part := range []string{"container gpu-lab-tenant-a-worker", tc.wantBad, "runs nothing in it",
				"docker rm -f gpu-lab-tenant-a-worker"} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("refusal %q lacks %q", err, part)
				}
			}
		})
	}
}

func TestKindNode(t *testing.T) {
	rec := Record{ID: "owner1", KindCluster: "gpu-lab", KindNodes: map[string]string{"gpu-lab-control-plane": "aaa"}}
	for _, tc := range []struct {
		name, node, id string
		wantErr        bool
	}{
		{"the recorded container", "gpu-lab-control-plane", "aaa", false},
		{"recreated under the recorded name", "gpu-lab-control-plane", "0123456789abcdef", true},
		{"a name the record does not hold", "gpu-lab-worker", "aaa", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := KindNode(rec, state.Dir("/s"), "gpu-lab", tc.node, docker.Container{ID: tc.id, Name: "/" + tc.node})
			if !tc.wantErr {
				if err != nil {
					t.Errorf("err = %v, want none", err)
				}
				return
			}
			if !errors.Is(err, ErrNotOwned) {
				t.Fatalf("err = %v, want ErrNotOwned", err)
			}
			for _, part := range []string{"container " + tc.node, "(ID " + ShortID(tc.id) + ")", "/s", "kind cluster gpu-lab"} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("refusal %q lacks %q", err, part)
				}
			}
		})
	}
}
