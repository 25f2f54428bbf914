package daggerrun

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/registry"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

func TestNodeImageOverrides(t *testing.T) {
	const node = "kindest/node:v1.36.4@sha256:099e"
	// The rehearsal's lab: one node image for the management cluster and
	// the workers (ci/hack/rehearsal/lab.yaml).
	same := lab.Versions{KindNodeImage: node, Kubernetes: "v1.36.4", WorkerNodeImage: node}
	// The seed lab's pins: the management node on kind's default version.
	apart := lab.Versions{KindNodeImage: "kindest/node:v1.37.0@sha256:a1ed", Kubernetes: "v1.36.4", WorkerNodeImage: node}
	for _, tc := range []struct {
		name     string
		versions lab.Versions
		pushed   []registry.Pushed
		want     []string
		wantErr  string
	}{
		{"one node image for both, served under another digest", same, []registry.Pushed{
			{Ref: "docker.io/projecthami/hami:v2.10.0", Digest: "sha256:aaaa"},
			{Ref: node, Digest: "sha256:6ed2"},
		}, []string{"kindNodeImage=kindest/node:v1.36.4@sha256:6ed2", "workerNodeImage=kindest/node:v1.36.4@sha256:6ed2"}, ""},
		{"worker image alone moved", apart, []registry.Pushed{{Ref: node, Digest: "sha256:6ed2"}},
			[]string{"workerNodeImage=kindest/node:v1.36.4@sha256:6ed2"}, ""},
		{"node served under its pin", same, []registry.Pushed{{Ref: node, Digest: "sha256:099e"}}, nil, ""},
		{"another pinned image moved", same, []registry.Pushed{
			{Ref: node, Digest: "sha256:6ed2"},
			{Ref: "quay.io/x/y:v1@sha256:1111", Digest: "sha256:2222"},
		}, nil, "quay.io/x/y:v1@sha256:1111 (served as sha256:2222)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NodeImageOverrides(tc.pushed, tc.versions)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("NodeImageOverrides = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
