package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/internal/nettest"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/results"
	"github.com/gpu-lab/gpu-lab/ci/state"
	"github.com/gpu-lab/gpu-lab/ci/suite"
	"github.com/gpu-lab/gpu-lab/ci/testenv"
)

const kubeconfigYAML = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`

func TestTestTargetFromStateDir(t *testing.T) {
	d := newStateDir(t, state.RealLab)
	if err := d.WriteLab(lab.Default()); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteKubeconfig("tenant-a", []byte(kubeconfigYAML)); err != nil {
		t.Fatal(err)
	}
	_, err := testTarget(testFlags{stateDir: string(d)})
	if err == nil || !strings.Contains(err.Error(), "tenant tenant-b: kubeconfig") || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("err = %v", err)
	}
	if err := d.WriteKubeconfig("tenant-b", []byte(kubeconfigYAML)); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteBackend("kind+kamaji+hami"); err != nil {
		t.Fatal(err)
	}
	tg, err := testTarget(testFlags{stateDir: string(d)})
	if err != nil {
		t.Fatal(err)
	}
	if tg.lab.Name != "gpu-lab" || len(tg.tenants) != 2 || tg.tenants["tenant-b"].Host != "https://127.0.0.1:1" ||
		tg.backend != "kind+kamaji+hami" {
		t.Errorf("got %s %v %q", tg.lab.Name, tg.tenants, tg.backend)
	}
	if tg.stateDir != d || tg.kubeconfigs["tenant-b"] != d.Kubeconfig("tenant-b") {
		t.Errorf("state dir %q, kubeconfigs %v", tg.stateDir, tg.kubeconfigs)
	}
}

func TestTestTargetKubeconfigFlags(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.yaml")
	if err := os.WriteFile(p, []byte(kubeconfigYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	tg, err := testTarget(testFlags{kubeconfigs: []string{"tenant-a=" + p, "tenant-b=" + p}})
	if err != nil || len(tg.tenants) != 2 || tg.backend != "existing platform" || tg.stateDir != "" || tg.kubeconfigs["tenant-a"] != p {
		t.Fatalf("got %+v, %v", tg, err)
	}
	if _, err := testTarget(testFlags{kubeconfigs: []string{p}}); err == nil || !strings.Contains(err.Error(), "want TENANT=PATH") {
		t.Fatalf("err = %v", err)
	}
}

func TestTestList(t *testing.T) {
	out, err := runRoot(t, "test", "--list")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"TC-01", "TC-08", "TC-16", "TC-17"} {
		if !strings.Contains(out, id) {
			t.Errorf("--list lacks %s:\n%s", id, out)
		}
	}
	// Every case says what hardware it needs.
	if n, want := strings.Count(out, "needs: "), len(suite.Cases()); n != want {
		t.Errorf("--list has %d needs lines, want one per case (%d):\n%s", n, want, out)
	}
	if !strings.Contains(out, "needs: a worker with two or more cards") {
		t.Errorf("--list does not say TC-09 needs a multi-card worker:\n%s", out)
	}
}

func TestPrintRunCallsOutSkippedCoreCases(t *testing.T) {
	run := &results.Run{Cases: []results.Case{
		{ID: "TC-03", Title: "t", Status: results.Skipped, Core: true, Message: "skipped: no card"},
		{ID: "TC-09", Title: "t", Status: results.Skipped, Message: "skipped: no pair"},
	}}
	var out bytes.Buffer
	printResultTable(&out, run, nil)
	if !strings.Contains(out.String(), "core cases skipped: TC-03 —") || strings.Contains(out.String(), "skipped: TC-03, TC-09") {
		t.Errorf("output:\n%s", out.String())
	}
}

func kubeconfigFor(addr string) []byte {
	return []byte(strings.Replace(kubeconfigYAML, "127.0.0.1:1", addr, 1))
}

// A state dir left by `labctl testenv up`: tenant-a's server hangs,
// tenant-b's is gone. Each is named once with its kubeconfig, the reports
// are written with every case failed for that reason, and the exit is 1.
func TestTestUnreachableTenantsFailFast(t *testing.T) {
	d := newStateDir(t, state.Testenv)
	reports := filepath.Join(t.TempDir(), "reports")
	if err := d.WriteLab(lab.Default()); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteBackend(testenv.Backend); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteKubeconfig("tenant-a", kubeconfigFor(nettest.SilentServer(t))); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteKubeconfig("tenant-b", kubeconfigFor(nettest.RefusingAddr(t))); err != nil {
		t.Fatal(err)
	}
	out, err := runRoot(t, "test", "--state-dir", string(d), "--report-dir", reports, "--reach-timeout", "300ms")
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("err = %v, want exit code 1\n%s", err, out)
	}
	var named []string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "(kubeconfig ") {
			named = append(named, line)
		}
	}
	wantA := "tenant tenant-a: API server unreachable: no answer within 300ms: "
	wantB := "connection refused (kubeconfig " + d.Kubeconfig("tenant-b") + "): the local test environment that wrote state dir " + string(d) +
		" is not running; start it with `labctl testenv up --state-dir " + string(d) + "`"
	if len(named) != 2 || !strings.HasPrefix(named[0], wantA) || !strings.Contains(named[0], "(kubeconfig "+d.Kubeconfig("tenant-a")+")") ||
		!strings.HasPrefix(named[1], "tenant tenant-b: ") || !strings.Contains(named[1], wantB) {
		t.Errorf("want one line per tenant naming its kubeconfig, got:\n%s", out)
	}
	if !strings.Contains(out, "not run: tenant tenant-a is unreachable (above)") {
		t.Errorf("case lines repeat the long reason:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(reports, "results.json"))
	if err != nil {
		t.Fatalf("reports not written: %v", err)
	}
	var run results.Run
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	for _, c := range run.Cases {
		if c.Status == results.Skipped && strings.HasPrefix(c.Message, "skipped: ") {
			continue
		}
		if c.Status != results.Failed || !strings.Contains(c.Message, "(kubeconfig "+string(d)) {
			t.Errorf("%s = %s %q, want failed with the tenant's reason", c.ID, c.Status, c.Message)
		}
	}
}

func TestReachTimeoutAtMostTenSeconds(t *testing.T) {
	d, err := time.ParseDuration(newTestCommand(streams{}).Flags().Lookup("reach-timeout").DefValue)
	if err != nil || d <= 0 || d > 10*time.Second {
		t.Fatalf("--reach-timeout default %v (%v), want (0, 10s]", d, err)
	}
}

func TestExplainUnreachable(t *testing.T) {
	refused := fmt.Errorf("tenant tenant-a: API server unreachable: %w",
		&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)})
	hung := errors.New("tenant tenant-a: API server unreachable: no answer within 10s: context deadline exceeded")
	testenvDir, labDir := newStateDir(t, state.Testenv), newStateDir(t, state.RealLab)
	if err := testenvDir.WriteBackend(testenv.Backend); err != nil {
		t.Fatal(err)
	}
	if err := labDir.WriteBackend("kind+kamaji+hami"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		dir  state.Dir
		err  error
		want string
	}{
		{"--kubeconfig: no state to blame", "", hung, hung.Error() + " (kubeconfig k.yaml)"},
		{"stale testenv state", testenvDir, refused,
			"(kubeconfig k.yaml): the local test environment that wrote state dir " + string(testenvDir) +
				" is not running; start it with `labctl testenv up --state-dir " + string(testenvDir) +
				"` and leave it running"},
		{"testenv that hangs is not called stopped for sure", testenvDir, hung,
			"(kubeconfig k.yaml): the local test environment that wrote state dir " + string(testenvDir) +
				" does not answer; is `labctl testenv up --state-dir " + string(testenvDir) +
				"` still running (not stopped)?"},
		{"real lab", labDir, refused, "(kubeconfig k.yaml): is the lab up? `labctl status --state-dir " + string(labDir) + "` shows it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg := target{stateDir: tc.dir, kubeconfigs: map[string]string{"tenant-a": "k.yaml"}}
			got := tg.explainUnreachable("tenant-a", tc.err)
			if !strings.Contains(got.Error(), tc.want) || !errors.Is(got, tc.err) {
				t.Errorf("got  %v\nwant %s", got, tc.want)
			}
		})
	}
}

// TestTestHelpNamesTheCatalog: the short help and --fail-on-skip name the
// cases from suite.Cases(), so a case added to the catalog shows up there.
func TestTestHelpNamesTheCatalog(t *testing.T) {
	cs := suite.Cases()
	var core []string
	for _, c := range cs {
		if c.Core {
			core = append(core, c.ID)
		}
	}
	cmd := newTestCommand(streams{})
	if want := "(" + cs[0].ID + ".." + cs[len(cs)-1].ID + ")"; !strings.Contains(cmd.Short, want) {
		t.Errorf("short help %q does not name %s", cmd.Short, want)
	}
	usage := cmd.Flags().Lookup("fail-on-skip").Usage
	if want := fmt.Sprintf("%d core cases (%s..%s)", len(core), core[0], core[len(core)-1]); !strings.Contains(usage, want) {
		t.Errorf("--fail-on-skip help %q does not name %s", usage, want)
	}
	apart := caseRange(func(c suite.Case) bool { return c.ID == cs[0].ID || c.ID == cs[2].ID })
	if want := cs[0].ID + ", " + cs[2].ID; apart != want {
		t.Errorf("caseRange of two cases apart = %q, want %q", apart, want)
	}
}
