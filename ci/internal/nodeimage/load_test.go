package nodeimage

import (
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/docker"
)

// listingNode answers `ctr images ls -q` with what it lists, and records
// every import.
type listingNode struct {
	listed  []string
	dump    []byte // recorded `containerd config dump`
	version []byte // recorded `ctr --version`
	imports []string
}

func (n *listingNode) Exec(_ context.Context, _ string, stdin io.Reader, cmd ...string) ([]byte, error) {
	line := strings.Join(cmd, " ")
	switch {
	case strings.Contains(line, "images ls -q"):
		return []byte(strings.Join(n.listed, "\n") + "\n"), nil
	case slices.Equal(cmd, ContainerdConfigDumpCommand):
		return n.dump, nil
	case slices.Equal(cmd, ctrVersionCommand):
		return n.version, nil
	case strings.Contains(line, "images import"):
		b, _ := io.ReadAll(stdin)
		n.imports = append(n.imports, string(b))
	}
	return nil, nil
}

func (n *listingNode) Save(_ context.Context, ref string, w io.Writer) error {
	_, err := io.WriteString(w, "archive of "+ref)
	return err
}

func (n *listingNode) ImageTransfer(context.Context) (docker.ImageTransfer, error) {
	return docker.ImageTransfer{}, nil
}

// TestLoadTellsWhetherItImported: an image the node's containerd lists
// (by its normalized name) is left alone and reported as not imported;
// one it lacks is streamed in and reported as imported — the stages log
// only what they imported.
func TestLoadTellsWhetherItImported(t *testing.T) {
	dump, err := os.ReadFile("testdata/containerd-config-dump-kind-node-v2.toml")
	if err != nil {
		t.Fatal(err)
	}
	version, err := os.ReadFile("testdata/ctr-version-v2.3.4.txt")
	if err != nil {
		t.Fatal(err)
	}
	n := &listingNode{listed: []string{"docker.io/projecthami/hami:v2.10.0"}, dump: dump, version: version}
	for _, tc := range []struct {
		ref      string
		imported bool
	}{
		{"projecthami/hami:v2.10.0", false},
		{"docker.io/liangjw/kube-webhook-certgen:v1.1.1", true},
	} {
		did, err := Load(context.Background(), n, "gpu-lab-tenant-a-worker", tc.ref)
		if err != nil || did != tc.imported {
			t.Errorf("Load(%s) = %v, %v; want %v, nil", tc.ref, did, err, tc.imported)
		}
	}
	if want := []string{"archive of docker.io/liangjw/kube-webhook-certgen:v1.1.1"}; !slices.Equal(n.imports, want) {
		t.Errorf("imports = %q, want %q", n.imports, want)
	}
}
