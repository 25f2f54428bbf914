package nodeimage

import (
	"os"
	"strings"
	"testing"
)

func TestContainerdSnapshotter(t *testing.T) {
	recorded, err := os.ReadFile("testdata/containerd-config-dump-kind-node-v2.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, dump, want, errHas string
	}{
		{"recorded kind node dump (version 2)", string(recorded), "overlayfs", ""},
		{"entrypoint switched to fuse-overlayfs", strings.Replace(string(recorded), `snapshotter = "overlayfs"`, `snapshotter = "fuse-overlayfs"`, 1), "fuse-overlayfs", ""},
		// Versions 3 and 4: the key kind v0.33.0 reads; no dump of a
		// containerd 2.x kindest/node is recorded here (testdata/README.md).
		{"version 3 key", "version = 3\n[plugins]\n  [plugins.\"io.containerd.cri.v1.images\"]\n    snapshotter = \"native\"\n", "native", ""},
		{"version 4 key", "version = 4\n[plugins.\"io.containerd.cri.v1.images\"]\n  snapshotter = \"overlayfs\"\n", "overlayfs", ""},
		{"version 3 at the version 2 key", "version = 3\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  snapshotter = \"overlayfs\"\n", "", "no snapshotter"},
		{"unknown version", "version = 5\n", "", "config version 5"},
		{"no version", "[plugins]\n", "", "no config version"},
		{"not TOML", "aaaa", "", "containerd config dump"},
		{"empty", "", "", "no config version"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ContainerdSnapshotter([]byte(tt.dump))
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("err = %v, want %q", err, tt.errHas)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ContainerdSnapshotter = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// The node imports its own platform only, locally (containerd.go): kind's
// --all-platforms fails on an archive from Docker's containerd image store,
// and ctr's transfer service unpacks for overlayfs only.
func TestContainerdImportCommand(t *testing.T) {
	got := strings.Join(ContainerdImportCommand("native", "linux/arm64"), " ")
	if got != "ctr --namespace=k8s.io images import --local --platform=linux/arm64 --digests --snapshotter=native -" {
		t.Errorf("import command = %s", got)
	}
}
