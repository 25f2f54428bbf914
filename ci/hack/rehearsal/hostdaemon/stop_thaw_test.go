package hostdaemon

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A frozen cgroup below the parent is thawed — freezer.state FROZEN or
// FREEZING on cgroup v1, cgroup.freeze 1 on v2 — and named; thawed ones
// and other files are left as they are.
func TestThawCgroupsThawsOnlyFrozenOnes(t *testing.T) {
	root := t.TempDir()
	v1 := filepath.Join(root, "freezer", "gpu-lab-rehearsal")
	v2 := filepath.Join(root, "unified", "gpu-lab-rehearsal")
	files := map[string]string{
		filepath.Join(v1, "node", "pod", "ctr", "freezer.state"): "FROZEN\n",
		filepath.Join(v1, "node", "other", "freezer.state"):      "FREEZING\n",
		filepath.Join(v1, "node", "freezer.state"):               "THAWED\n",
		filepath.Join(v2, "node", "ctr", "cgroup.freeze"):        "1\n",
		filepath.Join(v2, "node", "cgroup.freeze"):               "0\n",
		filepath.Join(v2, "node", "cgroup.procs"):                "42\n",
	}
	for f, content := range files {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := thawCgroups([]string{v1, v2})
	slices.Sort(got)
	want := []string{filepath.Join(v1, "node", "other"), filepath.Join(v1, "node", "pod", "ctr"), filepath.Join(v2, "node", "ctr")}
	if !slices.Equal(got, want) {
		t.Errorf("thawed %q, want %q", got, want)
	}
	for f, want := range map[string]string{
		filepath.Join(v1, "node", "pod", "ctr", "freezer.state"): "THAWED",
		filepath.Join(v1, "node", "other", "freezer.state"):      "THAWED",
		filepath.Join(v1, "node", "freezer.state"):               "THAWED\n",
		filepath.Join(v2, "node", "ctr", "cgroup.freeze"):        "0",
		filepath.Join(v2, "node", "cgroup.freeze"):               "0\n",
		filepath.Join(v2, "node", "cgroup.procs"):                "42\n",
	} {
		if b, _ := os.ReadFile(f); string(b) != want {
			t.Errorf("%s = %q, want %q", f, b, want)
		}
	}
}
