package chartbuild

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/rehearsal/imagebuild/cache"
)

// RealEnv opts in to the tests that build helm through the Go module proxy
// (minutes) and, with the snapshots, the charts.
const RealEnv = "GPU_LAB_REHEARSAL_CHARTBUILD"

// helm v3.19.0 builds from the module proxy and says its version.
func TestBuildHelmReal(t *testing.T) {
	if os.Getenv(RealEnv) == "" {
		t.Skipf("skipping: set %s=1 to build helm %s through the Go module proxy (minutes)", RealEnv, HelmVersion)
	}
	root, err := cache.Root()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := BuildHelm(context.Background(), slog.New(slog.NewTextHandler(os.Stderr, nil)), root)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "version", "--short").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out); got != HelmVersion+"\n" {
		t.Errorf("helm version --short = %q, want %s", got, HelmVersion)
	}
}
