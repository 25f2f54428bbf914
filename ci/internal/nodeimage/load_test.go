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

func (n *listingNode) SaveAll(_ context.Context, refs []string, w io.Writer) error {
	_, err := io.WriteString(w, "archive of "+strings.Join(refs, " "))
	return err
}

func (n *listingNode) ImageTransfer(context.Context) (docker.ImageTransfer, error) {
	return docker.ImageTransfer{}, nil
}

// TestLoadTellsWhatItImported: images the node's containerd lists (by
// their normalized names) are left alone; those it lacks are streamed in
// together, one archive through one import, each named once — the stages
// log only what they imported. A node that lists them all gets no import.
func TestLoadTellsWhatItImported(t *testing.T) {
	dump, err := os.ReadFile("testdata/containerd-config-dump-kind-node-v2.toml")
	if err != nil {
		t.Fatal(err)
	}
	version, err := os.ReadFile("testdata/ctr-version-v2.3.4.txt")
	if err != nil {
		t.Fatal(err)
	}
	const certgen, mock = "docker.io/liangjw/kube-webhook-certgen:v1.1.1", "gpu-lab/nvml-mock:v0.1.0"
	n := &listingNode{listed: []string{"docker.io/projecthami/hami:v2.10.0"}, dump: dump, version: version}
	did, err := Load(context.Background(), n, "gpu-lab-tenant-a-worker",
		[]string{"projecthami/hami:v2.10.0", certgen, mock, certgen})
	if err != nil || !slices.Equal(did, []string{certgen, mock}) {
		t.Errorf("Load = %q, %v; want [%s %s], nil", did, err, certgen, mock)
	}
	if want := []string{"archive of " + certgen + " " + mock}; !slices.Equal(n.imports, want) {
		t.Errorf("imports = %q, want %q", n.imports, want)
	}
	n = &listingNode{listed: []string{"docker.io/projecthami/hami:v2.10.0"}, dump: dump, version: version}
	did, err = Load(context.Background(), n, "gpu-lab-tenant-a-worker", []string{"projecthami/hami:v2.10.0"})
	if err != nil || did != nil {
		t.Errorf("Load of a listed image = %q, %v; want nothing imported", did, err)
	}
	if len(n.imports) != 0 {
		t.Errorf("imports = %q, want none", n.imports)
	}
}
