package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// otherLab is a valid lab file that is not the seed lab (another name).
func otherLab(t *testing.T, name string) string {
	t.Helper()
	l := lab.Default()
	l.Name = name
	d := newStateDir(t, state.RealLab)
	if err := d.WriteLab(l); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name+".yaml")
	b, err := os.ReadFile(d.LabPath())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// recordedDir is a state dir labctl made that records lab name.
func recordedDir(t *testing.T, k state.Kind, name string) state.Dir {
	t.Helper()
	d := newStateDir(t, k)
	l := lab.Default()
	l.Name = name
	if err := d.WriteLab(l); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestResolveLab is the rule of labRule, case by case.
func TestResolveLab(t *testing.T) {
	blue := otherLab(t, "blue")
	green := otherLab(t, "green")
	corrupt := recordedDir(t, state.RealLab, "red")
	if err := os.WriteFile(corrupt.LabPath(), []byte("tenants: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := state.Dir(filepath.Join(t.TempDir(), "none"))
	foreign := state.Dir(t.TempDir())
	tests := []struct {
		name     string
		file     string
		dir      state.Dir
		use      stateUse
		wantLab  string
		wantErrs []string
	}{
		{"nothing recorded, no -f: the seed lab", "", missing, makesState, "gpu-lab", nil},
		{"nothing recorded: -f", blue, missing, makesState, "blue", nil},
		{"a dir labctl did not make: -f (up claims it later or refuses)", blue, foreign, makesState, "blue", nil},
		{"claimed, nothing recorded yet: -f", blue, newStateDir(t, state.RealLab), makesState, "blue", nil},
		{"recorded: its lab, not the seed", "", recordedDir(t, state.RealLab, "blue"), makesState, "blue", nil},
		{"recorded, for a reading command", "", recordedDir(t, state.Testenv, "blue"), needsState, "blue", nil},
		{"recorded, the same -f", blue, recordedDir(t, state.RealLab, "blue"), makesState, "blue", nil},
		{"recorded seed, -f the seed's own file", "../../lab/default-lab.yaml", recordedDir(t, state.RealLab, "gpu-lab"),
			makesState, "gpu-lab", nil},
		{"recorded, another -f: refused with both", green, recordedDir(t, state.RealLab, "blue"), makesState, "",
			[]string{"lab file " + green + ` (lab "green") is not the lab state dir`, `resolved-lab.yaml, lab "blue")`, "`labctl down --state-dir"}},
		{"recorded, another -f, reading command: refused too", green, recordedDir(t, state.RealLab, "blue"), needsState, "",
			[]string{`(lab "green") is not the lab state dir`}},
		{"corrupt record: an error, never the seed", "", corrupt, makesState, "",
			[]string{corrupt.LabPath() + ", cannot be read", "fix: copy the lab file"}},
		{"corrupt record, with -f: still an error", blue, corrupt, makesState, "", []string{corrupt.LabPath() + ", cannot be read"}},
		{"reading command, no state dir", "", missing, needsState, "", []string{"state dir " + string(missing) + " does not exist"}},
		{"reading command, a dir labctl did not make", "", foreign, needsState, "", []string{"is not a labctl state dir"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := resolveLab(tc.file, tc.dir, tc.use)
			if tc.wantErrs == nil {
				if err != nil || l.Name != tc.wantLab {
					t.Fatalf("lab %v, err %v; want lab %s", l, err, tc.wantLab)
				}
				return
			}
			if err == nil {
				t.Fatalf("lab %s, want an error", l.Name)
			}
			for _, want := range tc.wantErrs {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("err = %v\nwant it to contain %q", err, want)
				}
			}
		})
	}
	if _, err := resolveLab("", foreign, needsState); !errors.Is(err, state.ErrNotLabctl) {
		t.Errorf("foreign dir: %v does not wrap ErrNotLabctl", err)
	}
}

// TestRecordedLabIsTheSameLab: a lab recorded from a lab file compares
// equal to that file again (the Dagger module runs `up -f FILE --only
// STAGE` once per stage against one state dir).
func TestRecordedLabIsTheSameLab(t *testing.T) {
	for _, file := range []string{"../../lab/default-lab.yaml", "../../render/testdata/three-tenants.yaml"} {
		l, err := lab.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		d := newStateDir(t, state.RealLab)
		if err := d.WriteLab(l); err != nil {
			t.Fatal(err)
		}
		if got, err := resolveLab(file, d, makesState); err != nil || got.Name != l.Name {
			t.Errorf("%s: %v, %v", file, got, err)
		}
	}
}

// TestResolveLabChangesForUp: up takes the recorded lab with a tenant
// added or removed at the end (lab.Changes), and only up; a lab file whose
// change a running lab cannot take is refused with the reason.
func TestResolveLabChangesForUp(t *testing.T) {
	seed, err := os.ReadFile("../../lab/default-lab.yaml")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, extra string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, append(append([]byte{}, seed...), extra...), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	grown := write("grown.yaml", "  - name: tenant-c\n    workers: [{name: worker, gpus: [{model: L4, count: 1}]}]\n")
	recorded := recordedDir(t, state.RealLab, "gpu-lab")
	l, err := resolveLab(grown, recorded, changesState)
	if err != nil || len(l.Tenants) != 3 || l.Tenants[2].Name != "tenant-c" {
		t.Fatalf("up with a tenant added: lab %v, err %v; want the grown lab", l, err)
	}
	if _, err := resolveLab(grown, recorded, makesState); err == nil {
		t.Error("plan/images/run with a tenant added: want the refusal, as before")
	}
	last := lab.Default()
	last.Tenants = last.Tenants[:1]
	if l, err := resolveLab(labFileOf(t, last), recorded, changesState); err != nil || len(l.Tenants) != 1 {
		t.Errorf("up with the last tenant removed: lab %v, err %v; want the lab without tenant-b", l, err)
	}
	first := lab.Default()
	first.Tenants = first.Tenants[1:]
	_, err = resolveLab(labFileOf(t, first), recorded, changesState)
	for _, want := range []string{"is not the lab state dir", "running tenant tenant-b would move from place 2 to 1",
		"`labctl down --state-dir"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("up with the first tenant removed: err %v, want it to contain %q", err, want)
		}
	}
}
