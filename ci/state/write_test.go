package state

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// TestWriteIgnoresPlantedFiles: the attack — another user's
// kubeconfigs/tenant-a.yaml.tmp (0666), the old fixed temp name — no longer
// decides the admin kubeconfig's mode or owner; the file is 0600 whatever
// the umask, and the planted file is left alone.
func TestWriteIgnoresPlantedFiles(t *testing.T) {
	d := Dir(t.TempDir())
	must(t, d.Claim(RealLab))
	must(t, d.WriteKubeconfig("tenant-b", []byte("b"))) // makes kubeconfigs/
	planted := d.Kubeconfig("tenant-a") + ".tmp"
	must(t, os.WriteFile(planted, []byte("planted"), 0o666))
	must(t, os.Chmod(planted, 0o666))
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	must(t, d.WriteKubeconfig("tenant-a", []byte("admin")))
	fi, err := os.Lstat(d.Kubeconfig("tenant-a"))
	if err != nil || fi.Mode() != 0o600 {
		t.Errorf("kubeconfig mode %v (%v), want -rw-------", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(planted); string(b) != "planted" {
		t.Errorf("planted file rewritten: %q", b)
	}
	if fi, err := os.Stat(filepath.Dir(d.Kubeconfig("tenant-a"))); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("kubeconfigs/ mode %v (%v), want 0700", fi.Mode(), err)
	}
}

// TestNeverReplacesForeignFiles: a file labctl did not record writing is
// never replaced — a hand-written lab.yaml in the state dir stays as it is
// (labctl's own record is resolved-lab.yaml), and a kubeconfig the user put
// where labctl would write one is refused, untouched.
func TestNeverReplacesForeignFiles(t *testing.T) {
	d := Dir(t.TempDir())
	must(t, d.Claim(RealLab))
	hand := filepath.Join(string(d), "lab.yaml")
	const handText = "# my lab, with comments\nname: mine\n"
	must(t, os.WriteFile(hand, []byte(handText), 0o644))
	must(t, d.WriteLab(lab.Default()))
	if b, _ := os.ReadFile(hand); string(b) != handText {
		t.Errorf("hand-written lab.yaml rewritten:\n%s", b)
	}
	if l, err := d.ReadLab(); err != nil || l.Name != "gpu-lab" {
		t.Errorf("recorded lab %v, %v", l, err)
	}
	must(t, os.MkdirAll(filepath.Join(string(d), KubeconfigsDir), 0o700))
	mine := d.Kubeconfig("tenant-a")
	must(t, os.WriteFile(mine, []byte("prod"), 0o600))
	err := d.WriteKubeconfig("tenant-a", []byte("lab"))
	if err == nil || !strings.Contains(err.Error(), mine+" is not a file labctl wrote") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(mine); string(b) != "prod" {
		t.Errorf("user's kubeconfig replaced: %q", b)
	}
	// labctl's own files it replaces.
	must(t, d.WriteKubeconfig("tenant-b", []byte("1")))
	must(t, d.WriteKubeconfig("tenant-b", []byte("2")))
	if b, _ := os.ReadFile(d.Kubeconfig("tenant-b")); string(b) != "2" {
		t.Errorf("own kubeconfig not replaced: %q", b)
	}
}

// TestCorruptLabNamesFileAndFix: a recorded lab that cannot be read is an
// error naming the file and how to fix it, never another lab.
func TestCorruptLabNamesFileAndFix(t *testing.T) {
	d := Dir(t.TempDir())
	must(t, d.Claim(RealLab))
	must(t, d.WriteLab(lab.Default()))
	must(t, os.WriteFile(d.LabPath(), []byte("name: [\n"), 0o600))
	_, err := d.ReadLab()
	if err == nil || !strings.Contains(err.Error(), d.LabPath()+", cannot be read") ||
		!strings.Contains(err.Error(), "fix: copy the lab file") {
		t.Fatalf("err = %v", err)
	}
}

// TestValuesFileStaysInValues: WriteValuesFile takes only a path of
// values/, so a caller cannot write elsewhere through it.
func TestValuesFileStaysInValues(t *testing.T) {
	d := Dir(t.TempDir())
	must(t, d.Claim(RealLab))
	for _, p := range []string{d.Kubeconfig("tenant-a"), d.Values("../stages.json"), d.Values("x/y.yaml"),
		filepath.Join(string(d), valuesDir)} {
		if err := d.WriteValuesFile(p, []byte("x")); err == nil || !strings.Contains(err.Error(), "is not a file of") {
			t.Errorf("%s: err = %v", p, err)
		}
	}
	must(t, d.WriteValuesFile(d.Values("hami-a.yaml"), []byte("v")))
	if fi, err := os.Stat(d.Values("hami-a.yaml")); err != nil || fi.Mode() != 0o600 {
		t.Errorf("values file %v, %v", fi, err)
	}
}
