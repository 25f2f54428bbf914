package state

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// userFiles is the directory: the user's files under the names
// labctl uses.
var userFiles = []string{"kubeconfigs/prod.yaml", "values/mine.yaml", "stages.json", "notes.txt"}

func writeUserFiles(t *testing.T, dir string, files []string) {
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		must(t, os.MkdirAll(filepath.Dir(p), 0o700))
		must(t, os.WriteFile(p, []byte("user's "+f), 0o600))
	}
}

func checkUserFiles(t *testing.T, dir string, files []string) {
	t.Helper()
	for _, f := range files {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f))); err != nil || string(b) != "user's "+f {
			t.Errorf("%s lost: %q, %v", f, b, err)
		}
	}
}

// TestRemoveRefusesUnmarkedDir: the case — a directory with
// kubeconfigs/prod.yaml, values/mine.yaml, stages.json and notes.txt and
// no marker — is refused and nothing is lost.
func TestRemoveRefusesUnmarkedDir(t *testing.T) {
	dir := t.TempDir()
	writeUserFiles(t, dir, userFiles)
	for name, remove := range map[string]func() ([]string, error){"RemoveLabState": Dir(dir).RemoveLabState, "RemoveAll": Dir(dir).RemoveAll} {
		removed, err := remove()
		if !errors.Is(err, ErrNotLabctl) || len(removed) > 0 {
			t.Errorf("%s: removed %v, err %v; want ErrNotLabctl and nothing removed", name, removed, err)
		}
	}
	checkUserFiles(t, dir, userFiles)
}

// TestRemoveOnlyWhatLabctlWrote: in a state dir labctl made, where the user
// later put files of their own beside labctl's, down removes labctl's
// kubeconfigs, values and stage records and nothing else.
func TestRemoveOnlyWhatLabctlWrote(t *testing.T) {
	d := Dir(t.TempDir())
	must(t, d.Claim(RealLab))
	must(t, d.WriteKubeconfig("tenant-a", []byte("a")))
	must(t, d.WriteManagementKubeconfig([]byte("m")))
	must(t, d.WriteValuesFile(d.Values("hami-tenant-a.yaml"), []byte("v")))
	must(t, d.WriteStages([]StageRecord{{Name: "cluster"}}))
	must(t, d.WriteBackend("kind"))
	mine := []string{"kubeconfigs/prod.yaml", "notes.txt"}
	writeUserFiles(t, string(d), mine)
	removed, err := d.RemoveLabState()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{d.Kubeconfig("tenant-a"), d.ManagementKubeconfig(), d.Values("hami-tenant-a.yaml"),
		filepath.Join(string(d), valuesDir), filepath.Join(string(d), StagesFile)}
	slices.Sort(want)
	slices.Sort(removed)
	if !slices.Equal(removed, want) {
		t.Errorf("removed %q\nwant    %q", removed, want)
	}
	checkUserFiles(t, string(d), mine)
	if d.Backend() != "kind" {
		t.Error("the backend line went with the lab state")
	}
	// kubeconfigs/ still holds the user's file: it stays recorded, and a
	// second down removes nothing more.
	if again, err := d.RemoveLabState(); err != nil || len(again) > 0 {
		t.Errorf("second down removed %v, %v", again, err)
	}
}

// TestRemoveAllOfStoppedTestenv: the stale state of a stopped local
// environment goes entirely, marker and directory included, unless the
// user put something there.
func TestRemoveAllOfStoppedTestenv(t *testing.T) {
	for _, userFile := range []bool{false, true} {
		d := Dir(filepath.Join(t.TempDir(), "state"))
		must(t, d.Claim(Testenv))
		must(t, d.WriteKubeconfig("tenant-a", []byte("a")))
		must(t, d.WriteServerVersion("v1.36.3"))
		release, err := d.Hold("labctl testenv up")
		must(t, err)
		release()
		if userFile {
			writeUserFiles(t, string(d), []string{"kubeconfigs/prod.yaml"})
		}
		if _, err := d.RemoveAll(); err != nil {
			t.Fatal(err)
		}
		_, statErr := os.Stat(string(d))
		switch {
		case !userFile && !errors.Is(statErr, os.ErrNotExist):
			t.Errorf("state dir left behind (%v)", statErr)
		case userFile:
			checkUserFiles(t, string(d), []string{"kubeconfigs/prod.yaml"})
			if _, err := os.Stat(d.Kubeconfig("tenant-a")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("labctl's kubeconfig left (%v)", err)
			}
			if d.Kind() != Testenv {
				t.Error("marker removed although a recorded directory stays")
			}
		}
	}
}

// TestRemoveTenantState: a tenant removed from a running lab takes its
// kubeconfig and its values with it; the other tenant's, the management
// kubeconfig and the user's own files stay, and so do their records.
func TestRemoveTenantState(t *testing.T) {
	d := Dir(t.TempDir())
	must(t, d.Claim(RealLab))
	for _, tn := range []string{"tenant-a", "tenant-b"} {
		must(t, d.WriteKubeconfig(tn, []byte(tn)))
		must(t, d.WriteValuesFile(d.Values("hami-"+tn+".yaml"), []byte(tn)))
	}
	must(t, d.WriteManagementKubeconfig([]byte("m")))
	mine := []string{"values/hami-tenant-b-notes.yaml"}
	writeUserFiles(t, string(d), mine)
	removed, err := d.RemoveTenantState("tenant-b", "hami-tenant-b.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{d.Kubeconfig("tenant-b"), d.Values("hami-tenant-b.yaml")}
	slices.Sort(removed)
	if !slices.Equal(removed, want) {
		t.Errorf("removed %q\nwant    %q", removed, want)
	}
	checkUserFiles(t, string(d), mine)
	for _, p := range []string{d.Kubeconfig("tenant-a"), d.Values("hami-tenant-a.yaml"), d.ManagementKubeconfig()} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s went with tenant-b: %v", p, err)
		}
	}
	// What stays is still labctl's: down removes it.
	all, err := d.RemoveLabState()
	if err != nil || !slices.Contains(all, d.Kubeconfig("tenant-a")) || slices.Contains(all, d.Kubeconfig("tenant-b")) {
		t.Errorf("down after the removal removed %q, %v; want tenant-a's and not tenant-b's again", all, err)
	}
}
