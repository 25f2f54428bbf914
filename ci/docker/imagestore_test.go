package docker

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// recordedVersion is `docker version --format '{{json .}}'` of this
// machine (testdata/docker-version/README.md).
func recordedVersion(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/docker-version/client-28.2.2-server-20.10.24.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// editedVersion sets Client/Server fields of the recorded version.
func editedVersion(t *testing.T, raw []byte, client, server map[string]any) []byte {
	t.Helper()
	var m map[string]map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range client {
		m["Client"][k] = v
	}
	for k, v := range server {
		m["Server"][k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestImageTransferFor decides how images are saved from recorded daemon
// output (this machine: Docker 20.10, classic store) and from that
// recording edited to the hosts this machine cannot show: the containerd
// image store reports DriverStatus [["driver-type",
// "io.containerd.snapshotter.v1"]] (moby docker-v29.7.2
// daemon/containerd/service.go:160-165, daemon/info.go:178) with the
// snapshotter as Driver ("overlayfs"); Docker 29.0 speaks API 1.52 (moby
// docker-v29.0.0 daemon/config/config.go:61 MaxAPIVersion); save takes
// --platform from API 1.48 (docker/cli v28.0.0
// cli/command/image/save.go:43-44), image inspect from 1.49 (v28.2.2
// cli/command/image/inspect.go:49-52).
func TestImageTransferFor(t *testing.T) {
	info, ver := recordedInfo(t), recordedVersion(t)
	c8d := edited(t, info, map[string]any{"Driver": "overlayfs", "DriverStatus": [][]string{{"driver-type", containerdSnapshotterDriverType}}})
	overlay2 := edited(t, info, map[string]any{"Driver": "overlay2",
		"DriverStatus": [][]string{{"Backing Filesystem", "extfs"}, {"Supports d_type", "true"}}})
	api := func(v string) []byte {
		return editedVersion(t, ver, map[string]any{"ApiVersion": v}, map[string]any{"ApiVersion": v})
	}
	const ref = "registry.k8s.io/etcd:v3.6.12"
	for _, tt := range []struct {
		name      string
		info, ver []byte
		want      ImageTransfer
		args      []string
	}{
		{"recorded: classic store, API 1.41", info, ver,
			ImageTransfer{Platform: "linux/amd64", APIVersion: "1.41"}, []string{"save", ref}},
		{"Docker 29 fresh install: containerd store, API 1.52", c8d, api("1.52"),
			ImageTransfer{Platform: "linux/amd64", ContainerdStore: true, SavePlatform: true, APIVersion: "1.52"},
			[]string{"save", "--platform", "linux/amd64", ref}},
		{"containerd store at exactly API 1.49", c8d, api("1.49"),
			ImageTransfer{Platform: "linux/amd64", ContainerdStore: true, SavePlatform: true, APIVersion: "1.49"},
			[]string{"save", "--platform", "linux/amd64", ref}},
		{"containerd store at API 1.48: save could, inspect could not", c8d, api("1.48"),
			ImageTransfer{Platform: "linux/amd64", ContainerdStore: true, APIVersion: "1.48"}, []string{"save", ref}},
		{"containerd store on Docker 27 (API 1.47): no --platform", c8d, api("1.47"),
			ImageTransfer{Platform: "linux/amd64", ContainerdStore: true, APIVersion: "1.47"}, []string{"save", ref}},
		{"upgraded Docker 29 on overlay2: classic store", overlay2, api("1.52"),
			ImageTransfer{Platform: "linux/amd64", APIVersion: "1.52"}, []string{"save", ref}},
		{"arm64 daemon on the containerd store", c8d,
			editedVersion(t, ver, map[string]any{"ApiVersion": "1.52"}, map[string]any{"Arch": "arm64"}),
			ImageTransfer{Platform: "linux/arm64", ContainerdStore: true, SavePlatform: true, APIVersion: "1.52"},
			[]string{"save", "--platform", "linux/arm64", ref}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			i, err := parseDaemonInfo(tt.info)
			if err != nil {
				t.Fatal(err)
			}
			v, err := parseVersion(tt.ver)
			if err != nil {
				t.Fatal(err)
			}
			got, err := imageTransferFor(i, v)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("ImageTransferFor = %+v, want %+v", got, tt.want)
			}
			if args := got.saveArgs(ref); !reflect.DeepEqual(args, tt.args) {
				t.Errorf("SaveArgs = %q, want %q", args, tt.args)
			}
			// Several images go into one archive, each named after the flags.
			if args, want := got.saveArgs(ref, "b"), append(slices.Clone(tt.args), "b"); !reflect.DeepEqual(args, want) {
				t.Errorf("SaveArgs(two) = %q, want %q", args, want)
			}
			// The IDs are read for the platform exactly when it is saved.
			ids := got.imageIDArgs(ref, "b")
			want := []string{"image", "inspect", "--format", "{{.Id}}", ref, "b"}
			if got.SavePlatform {
				want = []string{"image", "inspect", "--format", "{{.Id}}", "--platform", got.Platform, ref, "b"}
			}
			if !reflect.DeepEqual(ids, want) {
				t.Errorf("ImageIDArgs = %q, want %q", ids, want)
			}
			if !strings.Contains(got.Describe(), got.Platform) {
				t.Errorf("Describe %q does not name the platform", got.Describe())
			}
		})
	}
}

func TestImageTransferRejectsBadVersions(t *testing.T) {
	ver := recordedVersion(t)
	for _, tt := range []struct {
		name, errHas string
		ver          []byte
	}{
		{"API version not major.minor", "want major.minor", editedVersion(t, ver, map[string]any{"ApiVersion": "1"}, nil)},
		{"no server (no daemon answered)", "no server platform", []byte(`{"Client":{"Version":"28.2.2","ApiVersion":"1.50"},"Server":null}`)},
		{"not JSON", "decode docker version", []byte("Cannot connect to the Docker daemon")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, err := parseVersion(tt.ver)
			if err == nil {
				_, err = imageTransferFor(DaemonInfo{}, v)
			}
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("err = %v, want %q", err, tt.errHas)
			}
		})
	}
}
