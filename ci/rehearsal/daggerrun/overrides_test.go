package daggerrun

import (
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/rehearsal/registry"
)

func TestNodeImageOverride(t *testing.T) {
	const node = "kindest/node:v1.36.4@sha256:099e"
	for _, tc := range []struct {
		name    string
		pushed  []registry.Pushed
		want    string
		wantErr string
	}{
		{"node served under another digest", []registry.Pushed{
			{Ref: "docker.io/projecthami/hami:v2.10.0", Digest: "sha256:aaaa"},
			{Ref: node, Digest: "sha256:6ed2"},
		}, "kindNodeImage=kindest/node:v1.36.4@sha256:6ed2", ""},
		{"node served under its pin", []registry.Pushed{{Ref: node, Digest: "sha256:099e"}}, "", ""},
		{"another pinned image moved", []registry.Pushed{
			{Ref: node, Digest: "sha256:6ed2"},
			{Ref: "quay.io/x/y:v1@sha256:1111", Digest: "sha256:2222"},
		}, "", "quay.io/x/y:v1@sha256:1111 (served as sha256:2222)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NodeImageOverride(tc.pushed, node)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("NodeImageOverride = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
