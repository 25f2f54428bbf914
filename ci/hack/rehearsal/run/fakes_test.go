package run

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/images/chartstest"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/results"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// world is the fakes of one Run: every process, daemon start and stop is
// recorded in events, in order.
type world struct {
	t      *testing.T
	mu     sync.Mutex
	events []string
	// exit is each step's exit code; an up that fails writes diagnostics.
	exit map[step]int
	// failedCase makes the suite fail that case.
	failedCase string
	// during is called while labctl up runs, after its first line.
	during func()
	// daemon is the layout start fakes a daemon in (its log only).
	daemon hostdaemon.Layout
	// testLines are printed on stderr by labctl test before it writes its
	// results; duringTest is called after them.
	testLines  []string
	duringTest func()
	// failedMessage is the failed case's message ("pod stayed Pending"
	// when empty).
	failedMessage string
	// fault answers a fault command: it prints the command's lines and
	// returns its exit code.
	fault func(c command, line func(stream, string)) int
	// leftovers is what the daemon holds after an interrupted up.
	leftovers []string
	// upEndsFirst makes the interrupted up end before any signal.
	upEndsFirst bool
}

func (w *world) record(e string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, e)
}

func (w *world) run(ctx context.Context, c command, log io.Writer, line func(stream, string)) (usage, error) {
	if c.Step == stepFault {
		// Without nsenter's prefix: what runs in the namespace.
		w.record("fault " + strings.Join(c.Args[3:], " "))
	} else {
		w.record("labctl " + string(c.Step))
	}
	stateDir := argAfter(c.Args, "--state-dir")
	code := w.exit[c.Step]
	switch c.Step {
	case stepUpInterrupted:
		return w.interrupted(ctx, c, log, line)
	case stepUp:
		// labctl up claims its state directory first (ci/state Claim).
		if err := state.Dir(stateDir).Claim(state.RealLab); err != nil {
			return usage{}, err
		}
		line(stdout, "· cluster  started")
		if w.during != nil {
			w.during()
		}
		rec := []stageRecord{{"cluster", "done", 61 * time.Second, ""}, {"kamaji", "done", 95 * time.Second, ""}}
		if code != 0 {
			rec = append(rec, stageRecord{"tenants", "failed", 300 * time.Second,
				`tenants: tenant-a: TenantControlPlane kamaji-system/tenant-a not Ready after 5m0s: ` +
					`status.kubernetesResources.version.status=Provisioning`})
			diag := filepath.Join(stateDir, "diagnostics", "tenants-20261202T150000Z")
			if err := os.MkdirAll(diag, 0o755); err != nil {
				return usage{}, err
			}
			if err := os.WriteFile(filepath.Join(diag, "tcp.yaml"), []byte("kind: TenantControlPlane\n"), 0o644); err != nil {
				return usage{}, err
			}
			line(stdout, "✗ tenants     5m0.0s  "+rec[2].msg)
			line(stderr, "labctl: stage tenants: "+rec[2].msg)
		}
		writeStages(w.t, stateDir, rec)
	case stepTest:
		for _, l := range w.testLines {
			line(stderr, l)
		}
		if w.duringTest != nil {
			w.duringTest()
		}
		writeResults(w.t, argAfter(c.Args, "--report-dir"), w.failedCase, w.failedMessage)
		if w.failedCase != "" {
			code = 1
		}
	case stepFault:
		if w.fault == nil {
			w.t.Errorf("a fault command ran although the test made no fault: %s", c)
			return usage{ExitCode: 1}, nil
		}
		// As Processes: every line into the log too.
		code := w.fault(c, func(s stream, l string) { fmt.Fprintln(log, l); line(s, l) })
		return usage{ExitCode: code}, nil
	}
	fmt.Fprintln(log, "output of", c.Step)
	return usage{Wall: 2 * time.Second, MaxRSS: 80 << 20, ExitCode: code}, nil
}

func (w *world) start(context.Context) (hostdaemon.Layout, error) {
	w.record("daemon start")
	if err := os.MkdirAll(w.daemon.LogDir(), 0o755); err != nil {
		return w.daemon, err
	}
	return w.daemon, os.WriteFile(w.daemon.DockerdLog(), []byte("level=info msg=\"API listen\"\n"), 0o644)
}

func (w *world) stop(context.Context) error { w.record("daemon stop"); return nil }

func (w *world) host(context.Context, Paths) hostInfo {
	return hostInfo{Kernel: "6.18.44", Cgroup: "v1", Docker: "20.10.24+dfsg1", Containerd: "containerd 1.6.20",
		Runc: "runc version 1.1.5", Helm: "v3.19"}
}
func (w *world) labctlVersion(context.Context, string) string {
	return "labctl development build\ncommit 2e22de3\n"
}
func (w *world) imageLabels(_ context.Context, _ Paths, name string) (map[string]string, error) {
	return map[string]string{buildKeyLabel: "k", buildSourceLabel: "source of " + name}, nil
}
func (w *world) sample(Paths) sample { return sample{DiskBytes: 7 << 30, MemoryPeakBytes: 3 << 30} }
func (w *world) daemonPeakRSS(Paths) map[string]int64 {
	return map[string]int64{"dockerd": 200 << 20, "containerd": 90 << 20}
}

type stageRecord struct {
	name, status string
	took         time.Duration
	msg          string
}

// writeStages writes stages.json as labctl up does (ci/state's records),
// in a state directory it has claimed.
func writeStages(t *testing.T, dir string, recs []stageRecord) {
	var out []state.StageRecord
	for _, r := range recs {
		out = append(out, state.StageRecord{Name: r.name, Status: r.status, Duration: r.took, Message: r.msg})
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := state.Dir(dir).Claim(state.RealLab); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stages.json"), b, 0o644); err != nil {
		t.Error(err)
	}
}

func writeResults(t *testing.T, dir, failed, message string) {
	if message == "" {
		message = "pod stayed Pending"
	}
	run := results.Run{Schema: results.SchemaVersion, Lab: "seed", Duration: results.Duration(42 * time.Second)}
	for _, id := range []string{"TC-01", "TC-02"} {
		c := results.Case{ID: id, Status: results.Passed}
		if id == failed {
			c.Status, c.Message = results.Failed, message
		}
		run.Cases = append(run.Cases, c)
	}
	b, _ := json.Marshal(run)
	if err := os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644); err != nil {
		t.Error(err)
	}
}

func argAfter(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// setup makes a bundle with one image, a charts directory with the seed
// lab's charts, and options whose every path is in a temporary directory.
func setup(t *testing.T, w *world) (Options, Deps) { return setupIn(t, w, t.TempDir()) }

func setupIn(t *testing.T, w *world, dir string) (Options, Deps) {
	bundle := filepath.Join(dir, "bundle")
	if err := os.MkdirAll(bundle, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := images.WriteIndex(bundle, images.Index{
		Images: []images.Entry{{Ref: "kindest/node:v1.37.0", File: "node.tar", ID: "sha256:1111"}}}); err != nil {
		t.Fatal(err)
	}
	chartDir := filepath.Join(dir, "charts")
	if err := os.MkdirAll(chartDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range images.PinnedCharts(lab.Default()) {
		chartstest.Write(t, filepath.Join(chartDir, images.ChartArchiveName(c)), chartFiles(c.Name, c.Version)...)
	}
	p := testPaths
	p.Bundle, p.State, p.Reports = bundle, filepath.Join(dir, "run", "state"), filepath.Join(dir, "reports")
	p.Daemon = hostdaemon.Layout{Dir: filepath.Join(dir, "daemon")}
	w.daemon = p.Daemon
	// Kernel limits as files: one below its minimum, one above.
	watches, instances := filepath.Join(dir, "max_user_watches"), filepath.Join(dir, "max_user_instances")
	for f, v := range map[string]string{watches: "192530\n", instances: "1024\n"} {
		if err := os.WriteFile(f, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o := Options{Paths: p, Charts: chartDir, LibModulesDir: filepath.Join(dir, "lib-modules"),
		Limits: []Sysctl{{Path: watches, Min: 524288}, {Path: instances, Min: 512}}}
	clock := time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)
	return o, Deps{Exec: w, Daemon: w, Probe: w, Now: func() time.Time { return clock },
		Ticker: func(time.Duration) (<-chan time.Time, func()) { return nil, func() {} }}
}

// kamajiEtcdValues are the values of the kamaji-etcd subchart whose names
// labctl reads to pin its images (kamaji-etcd v0.17.0
// charts/kamaji-etcd/values.yaml:15-21 and :219-225), with that release's
// defaults: a Kamaji archive without them is refused.
const kamajiEtcdValues = `image:
  repository: quay.io/coreos/etcd
  tag: ""
  pullPolicy: IfNotPresent
jobs:
  kubectl:
    image: clastix/kubectl
    tag: ""
  etcd:
    image: quay.io/coreos/etcd
    tag: v3.5.6
    pullPolicy: IfNotPresent
`

// chartFiles is a chart archive's files: its Chart.yaml, and for kamaji
// the kamaji-etcd 0.17.0 it carries where helm package puts a dependency
// (PARENT/charts/SUB/, helm v3.19.0 pkg/chartutil/save.go:229-234).
func chartFiles(name, version string) []chartstest.File {
	files := []chartstest.File{chartstest.Chart(name, version)}
	if name == "kamaji" {
		dir := name + "/charts/kamaji-etcd/"
		files = append(files,
			chartstest.File{Path: dir + "Chart.yaml", Data: "apiVersion: v2\nname: kamaji-etcd\nversion: 0.17.0\nappVersion: \"3.6.12\"\n"},
			chartstest.File{Path: dir + "values.yaml", Data: kamajiEtcdValues})
	}
	return files
}

func (w *world) left(context.Context, Paths) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.leftovers...)
}
