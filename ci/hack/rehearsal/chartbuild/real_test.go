package chartbuild

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/cache"
	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// GitDirsEnv lists the snapshots for TestBuildChartsReal, comma-separated
// OWNER/NAME=DIR as --git-dir takes them.
const GitDirsEnv = "GPU_LAB_REHEARSAL_GIT_DIRS"

// RealEnv opts in to the tests that build helm through the Go module proxy
// (minutes) and, with the snapshots, the charts.
const RealEnv = "GPU_LAB_REHEARSAL_CHARTBUILD"

// helm v3.19.0 builds from the module proxy and says its version.
func TestBuildHelmReal(t *testing.T) {
	if os.Getenv(RealEnv) == "" {
		t.Skipf("skipping: set %s=1 to build helm %s through the Go module proxy (minutes)", RealEnv, helmVersion)
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
	if got := string(out); got != helmVersion+"\n" {
		t.Errorf("helm version --short = %q, want %s", got, helmVersion)
	}
}

// The seed lab's charts build from the snapshots into archives that
// `rehearse run --charts` accepts, and each renders with helm template.
func TestBuildChartsReal(t *testing.T) {
	dirs := os.Getenv(GitDirsEnv)
	if os.Getenv(RealEnv) == "" || dirs == "" {
		t.Skipf("skipping: set %s=1 and %s=OWNER/NAME=DIR,… (the four upstream snapshots) to build the charts", RealEnv, GitDirsEnv)
	}
	snaps, err := ParseGitDirs(strings.Split(dirs, ","))
	if err != nil {
		t.Fatal(err)
	}
	root, err := cache.Root()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	helm, err := BuildHelm(ctx, log, root)
	if err != nil {
		t.Fatal(err)
	}
	l := lab.Default()
	out := t.TempDir()
	made, err := Build(ctx, Options{Out: out, Root: t.TempDir(), Helm: helm, Snapshots: snaps, Charts: images.PinnedCharts(l),
		Versions: l.Versions, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	if len(made) != 3 {
		t.Fatalf("made %d charts, want 3", len(made))
	}
	for _, m := range made {
		if err := checkArchive(m.Archive, m.Recipe.Chart); err != nil {
			t.Error(err)
		}
		if m.Recipe.Kind == kindKamaji {
			if m.KamajiEtcd == nil || m.KamajiEtcd.Version != "0.17.0" {
				t.Errorf("kamaji carries kamaji-etcd %+v, want 0.17.0", m.KamajiEtcd)
			}
			if _, err := images.CheckKamajiEtcd(m.Archive); err != nil {
				t.Error(err)
			}
		}
		h := Helm{Binary: helm, Home: t.TempDir()}
		if _, err := Template(ctx, h, m.Archive, "r", "ns", Values{}, t.TempDir()); err != nil {
			t.Errorf("%s: %v", m.Recipe.Chart.Name, err)
		}
	}
}
