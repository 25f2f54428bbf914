package bincache

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The cache key follows the build module's content and the Go version, so a
// changed pin or source builds afresh and an unchanged one never does.
func TestCacheKeyFollowsModuleContent(t *testing.T) {
	src := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(src, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module x\n")
	write("go.sum", "")
	write("cmd/a/main.go", "package main\n")
	key := func(goVersion string) string {
		k, err := cacheKey(src, goVersion)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	base := key("go1.26.8")
	if !strings.HasPrefix(base, KubernetesVersion+"-") {
		t.Errorf("key %q does not start with the Kubernetes version", base)
	}
	if again := key("go1.26.8"); again != base {
		t.Errorf("key not stable: %s then %s", base, again)
	}
	if other := key("go1.27.0"); other == base {
		t.Error("key ignores the Go version")
	}
	write("README.md", "docs do not change binaries")
	if k := key("go1.26.8"); k != base {
		t.Error("key changed for a non-Go file")
	}
	write("cmd/a/main.go", "package main\n\nfunc main() {}\n")
	if k := key("go1.26.8"); k == base {
		t.Error("key ignores a source change")
	}
	write("go.sum", "k8s.io/kubernetes v1.36.3 h1:x\n")
	if k := key("go1.26.8"); k == base {
		t.Error("key ignores go.sum")
	}
}

func TestLdflagsStampVersion(t *testing.T) {
	f := ldflags()
	for _, want := range []string{
		"-X k8s.io/component-base/version.gitVersion=" + KubernetesVersion,
		"-X k8s.io/component-base/version.gitMinor=36",
		"-X k8s.io/client-go/pkg/version.gitVersion=" + KubernetesVersion,
		"-s -w",
	} {
		if !strings.Contains(f, want) {
			t.Errorf("ldflags %q lack %q", f, want)
		}
	}
}

// The progress of a build is read from its log: a recorded real log of
// module downloads followed by `go build -v` output.
func TestReadBuildStatusRecordedLog(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "go-build-v.log"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	tests := []struct {
		name  string
		lines int // how much of the log exists yet
		want  buildStatus
	}{
		{"command line only", 3, buildStatus{}},
		{"downloading", 5, buildStatus{Downloaded: 2, Last: "downloading sigs.k8s.io/apiserver-network-proxy v0.36.0"}},
		{"standard library compiling", 40, buildStatus{Downloaded: 12, Last: "downloading " + strings.TrimPrefix(lines[14], "go: downloading ")}},
		{"whole log", len(lines), buildStatus{Downloaded: 12, Compiled: 3, Last: "compiled sigs.k8s.io/yaml"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := readBuildStatus(strings.Join(lines[:tc.lines], "\n")); got != tc.want {
				t.Errorf("readBuildStatus = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestProgressLineSaysWhatWhereAndHowLong(t *testing.T) {
	tests := []struct {
		name  string
		s     buildStatus
		total int
		want  []string
	}{
		{"nothing yet", buildStatus{}, 0, []string{"no package compiled yet"}},
		{"downloading", buildStatus{Downloaded: 7, Last: "downloading k8s.io/api v0.36.3"}, 0,
			[]string{"7 modules downloaded", "last downloading k8s.io/api v0.36.3"}},
		{"compiling, total unknown", buildStatus{Downloaded: 140, Compiled: 12, Last: "compiled k8s.io/api/core/v1"}, 0,
			[]string{"12 packages compiled", "last compiled k8s.io/api/core/v1"}},
		{"compiling, total known", buildStatus{Compiled: 812}, 1900, []string{"812 of at most 1900 packages compiled"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			line := progressLine(tc.s, 95*time.Second, tc.total)
			for _, w := range append(tc.want, "1m35s elapsed", KubernetesVersion, buildEstimate) {
				if !strings.Contains(line, w) {
					t.Errorf("progress line %q lacks %q", line, w)
				}
			}
		})
	}
}

// Every tick produces one line naming the build log, read afresh.
func TestReportBuildSpeaksAtEveryTick(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "build.log")
	// Each line is handed over as it is written, so the test changes the
	// build log only after the tick before it has been reported.
	lines := make(chan string, 2)
	log := slog.New(slog.NewTextHandler(lineWriter(lines), nil))
	tick := make(chan time.Time)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		reportBuild(ctx, log, logPath, start, func() int { return 0 }, tick)
	}()
	var got []string
	tick <- start.Add(10 * time.Second) // no log yet
	got = append(got, <-lines)
	if err := os.WriteFile(logPath, []byte("go: downloading k8s.io/api v0.36.3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tick <- start.Add(35 * time.Second)
	got = append(got, <-lines)
	cancel()
	<-done
	if len(lines) != 0 {
		t.Fatalf("more than one line per tick: %q", <-lines)
	}
	for i, want := range []string{"10s elapsed, no package compiled yet", "35s elapsed, 1 modules downloaded"} {
		if !strings.Contains(got[i], want) || !strings.Contains(got[i], "log="+logPath) {
			t.Errorf("line %d = %q, want %q and the log path", i, got[i], want)
		}
	}
}

// lineWriter sends every Write (one slog record) on ch.
type lineWriter chan<- string

func (w lineWriter) Write(p []byte) (int, error) {
	w <- strings.TrimSpace(string(p))
	return len(p), nil
}
