package nodeimage

import (
	"os"
	"path/filepath"
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
		{"entrypoint switched to fuse-overlayfs", strings.Replace(string(recorded), `snapshotter = "overlayfs"`, `snapshotter = "fuse-overlayfs"`,
			1), "fuse-overlayfs", ""},
		// Versions 3 and 4: the key kind v0.33.0 reads; no dump of a
		// containerd 2.x kindest/node is recorded here (testdata/README.md).
		{"version 3 key", "version = 3\n[plugins]\n  [plugins.\"io.containerd.cri.v1.images\"]\n    snapshotter = \"native\"\n", "native", ""},
		{"version 4 key", "version = 4\n[plugins.\"io.containerd.cri.v1.images\"]\n  snapshotter = \"overlayfs\"\n", "overlayfs", ""},
		{"version 3 at the version 2 key", "version = 3\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  snapshotter = \"overlayfs\"\n", "",
			"no snapshotter"},
		{"unknown version", "version = 5\n", "", "config version 5"},
		{"no version", "[plugins]\n", "", "no config version"},
		{"not TOML", "aaaa", "", "containerd config dump"},
		{"empty", "", "", "no config version"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := containerdSnapshotter([]byte(tt.dump))
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
// and ctr's transfer service unpacks for overlayfs only. A ctr without
// --local (containerd 1.6) imports locally anyway and refuses the flag.
func TestContainerdImportCommand(t *testing.T) {
	got := strings.Join(ContainerdImportCommand("native", "linux/arm64", true), " ")
	if got != "ctr --namespace=k8s.io images import --local --platform=linux/arm64 --digests --snapshotter=native -" {
		t.Errorf("import command = %s", got)
	}
	got = strings.Join(ContainerdImportCommand("overlayfs", "linux/amd64", false), " ")
	if got != "ctr --namespace=k8s.io images import --platform=linux/amd64 --digests --snapshotter=overlayfs -" {
		t.Errorf("import command without --local = %s", got)
	}
}

// `ctr --version` as real nodes print it (testdata/README.md says how each
// was recorded).
func TestCtrImportsLocally(t *testing.T) {
	for _, tt := range []struct {
		file string
		want bool
	}{
		{"ctr-version-debian-1.6.20.txt", false},
		{"ctr-version-v2.3.4.txt", true},
	} {
		out, err := os.ReadFile(filepath.Join("testdata", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := ctrImportsLocally(out); got != tt.want {
			t.Errorf("%s (%q): imports locally = %v, want %v", tt.file, out, got, tt.want)
		}
	}
	// The recorded refusal is what a 1.6 node says to --local.
	refusal, err := os.ReadFile(filepath.Join("testdata", "ctr-import-local-debian-1.6.20.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(refusal), "flag provided but not defined: -local") {
		t.Errorf("the recorded 1.6.20 import does not refuse --local:\n%s", refusal)
	}
	for _, unreadable := range []string{"", "containerd 1.6.20", "ctr github.com/containerd/containerd unknown"} {
		if !ctrImportsLocally([]byte(unreadable)) {
			t.Errorf("%q: an unreadable version must keep --local (the pinned nodes' ctr has it)", unreadable)
		}
	}
}

// The rehearsal's node (Debian's containerd 1.6.20) names its snapshotter
// where kind's config version 2 does.
func TestContainerdSnapshotterOfARecordedDebianNode(t *testing.T) {
	dump, err := os.ReadFile(filepath.Join("testdata", "containerd-config-dump-debian-1.6.20.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := containerdSnapshotter(dump); err != nil || got != "overlayfs" {
		t.Errorf("ContainerdSnapshotter = %q, %v; want overlayfs", got, err)
	}
}
