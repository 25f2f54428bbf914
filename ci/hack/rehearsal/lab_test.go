package rehearsal

import (
	"os"
	"reflect"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// The rehearsal's lab is the seed lab but for the management node, which
// runs the tenants' version from the image the tenants' workers use.
func TestRehearsalLabIsTheSeedLabOnOneVersion(t *testing.T) {
	got, err := lab.Parse(LabYAML)
	if err != nil {
		t.Fatal(err)
	}
	seed := lab.Default()
	if want := lab.WorkerImages[seed.Versions.Kubernetes]; got.Versions.KindNodeImage != want {
		t.Errorf("management node image %q, want the tenants' worker image %q", got.Versions.KindNodeImage, want)
	}
	got.Versions.KindNodeImage = seed.Versions.KindNodeImage
	if !reflect.DeepEqual(got, seed) {
		t.Errorf("the rehearsal's lab differs from the seed lab beyond the management node:\n%+v\n%+v", got, seed)
	}
	p, err := WriteLab(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != string(LabYAML) {
		t.Errorf("WriteLab wrote %q (%v)", b, err)
	}
}
