package stages

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestWorkersBegunAheadNeedNoTenantAndRunOnce: the workers stage's steps
// the runner begins ahead start every worker with no tenant control plane
// there yet (no tenant kubeconfig in the state dir), and the stage run in
// its place then joins them without starting or booting any a second
// time.
func TestWorkersBegunAheadNeedNoTenantAndRunOnce(t *testing.T) {
	l := newTwoByTwo(t)
	l.join = func(ctx context.Context, worker string) ([]byte, error) { return nil, l.register(ctx, worker) }
	a, err := workersStage{}.ahead(l.e)
	if err != nil {
		t.Fatal(err)
	}
	if a.After != stageCluster {
		t.Errorf("ahead after %q, want %q", a.After, stageCluster)
	}
	var hidden []string
	for _, tn := range l.e.Lab.Tenants {
		p := l.e.State.Kubeconfig(tn.Name)
		if err := os.Rename(p, p+".later"); err != nil {
			t.Fatal(err)
		}
		hidden = append(hidden, p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), failureBound)
	defer cancel()
	if err := l.e.runSteps(ctx, stageWorkers, a.Steps); err != nil {
		t.Fatalf("steps begun ahead, before any tenant control plane: %v", err)
	}
	starts := func(what string) map[string]int {
		n := map[string]int{}
		for _, c := range l.d.calls {
			for _, node := range l.nodes {
				if c == "run "+node || (what == "boot" && strings.HasPrefix(c, "exec "+node+" systemctl")) {
					n[node]++
				}
			}
		}
		return n
	}
	for _, node := range l.nodes {
		if starts("run")[node] != 1 || starts("boot")[node] < 2 {
			t.Fatalf("after the steps begun ahead: docker run %v, run and systemctl %v; want each worker started and booted",
				starts("run"), starts("boot"))
		}
	}
	for _, p := range hidden {
		if err := os.Rename(p+".later", p); err != nil {
			t.Fatal(err)
		}
	}
	bootsAhead := starts("boot")
	if _, err := a.Stage.Run(ctx, l.e); err != nil {
		t.Fatal(err)
	}
	for _, node := range l.nodes {
		if starts("run")[node] != 1 || starts("boot")[node] != bootsAhead[node] {
			t.Errorf("the stage started or booted %s again: docker run %v, boots %v (ahead %v)", node, starts("run"), starts("boot"),
				bootsAhead)
		}
	}
}
