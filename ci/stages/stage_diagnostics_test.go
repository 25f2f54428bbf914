package stages

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/stages/internal/owner"
)

// TestDiagnoseReadsOnlyWhatThisStateDirMade: after the cluster stage
// refused a foreign kind cluster of the lab's name, the diagnostics do not
// run `kind export logs` on it (errors.txt says why); lab-labelled
// containers of other state dirs get no journalctl or docker logs; this
// state dir's own worker still does.
func TestDiagnoseReadsOnlyWhatThisStateDirMade(t *testing.T) {
	e, d, _, _ := managementUp(t)
	k := e.Kind.(*fakeKind)
	k.exists = true
	d.kindNode(e.Lab.Name) // a foreign cluster: nothing recorded
	rec, err := e.ensureOwner()
	if err != nil {
		t.Fatal(err)
	}
	own, other := e.Lab.NodeName("tenant-a", "worker"), e.Lab.NodeName("tenant-b", "worker")
	for name, id := range map[string]string{own: rec.ID, other: "0123456789abcdef0123456789abcdef"} {
		c := runningOn(name, "kind", "172.18.0.3")
		c.Config.Labels = ownedWorkerLabels(e, strings.TrimSuffix(strings.TrimPrefix(name, e.Lab.Name+"-"), "-worker"), id)
		d.containers[name] = c
	}
	dir := t.TempDir()
	_ = Diagnose(context.Background(), e, &Error{Stage: stageCluster, Object: "kind cluster " + e.Lab.Name, Condition: "not this state dir's"},
		dir)
	if strings.Contains(strings.Join(k.calls, ","), "logs") {
		t.Error("kind export logs ran against a cluster this state dir did not create")
	}
	errs, _ := os.ReadFile(filepath.Join(dir, "errors.txt"))
	if !strings.Contains(string(errs), "kind export logs: not collected") || !strings.Contains(string(errs), owner.ErrNotOwned.Error()) {
		t.Errorf("errors.txt does not say why kind's logs are missing:\n%s", errs)
	}
	for _, c := range d.calls {
		if strings.HasPrefix(c, "exec "+other+" ") {
			t.Errorf("ran in another state dir's container: %s", c)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "workers", other+".log")); err == nil {
		t.Errorf("collected the logs of %s, another state dir's", other)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "workers", own+".log")); err != nil || !strings.Contains(string(b), "journalctl") {
		t.Errorf("this state dir's worker %s: %q, %v", own, b, err)
	}
}
