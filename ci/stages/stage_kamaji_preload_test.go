package stages

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
)

// releaseHelm answers helm as okHelm does and notes each install among the
// nodes' events; the install of holdRelease returns only once an import of
// holdFor has been recorded (or after 10 s, noting it did not happen).
type releaseHelm struct {
	okHelm
	n           *nodeStores
	holdRelease string
	holdFor     string
	overlapped  bool
}

func (h *releaseHelm) Run(ctx context.Context, kc string, args ...string) ([]byte, error) {
	if len(args) > 2 && args[0] == "upgrade" && args[1] == "--install" {
		release := args[2]
		if release == h.holdRelease {
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !h.overlapped; {
				h.n.mu.Lock()
				h.overlapped = slices.ContainsFunc(h.n.events, func(ev string) bool { return strings.HasSuffix(ev, " "+h.holdFor) })
				h.n.mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		}
		h.n.mu.Lock()
		h.n.events = append(h.n.events, "helm "+release)
		h.n.mu.Unlock()
	}
	return h.okHelm.Run(ctx, kc, args...)
}

// TestKamajiStageImportsEachReleasesImagesBeforeItsInstall: with a bundle,
// every image of the kamaji stage belongs to one of its releases and is in
// the management node before that release installs; Kamaji's images go in
// while cert-manager installs (its install here waits for them), not
// before the stage's first install. The Runner imports none of them itself.
func TestKamajiStageImportsEachReleasesImagesBeforeItsInstall(t *testing.T) {
	e, d, _, mc := managementUp(t)
	n := withBundle(t, e, d)
	ownManagementNode(t, e, d)
	ctx := context.Background()
	seedKamajiReady(ctx, mc)
	var kamajiImage string
	for _, i := range e.Preload.Images {
		if i.Release == KamajiRelease && strings.HasPrefix(i.Ref, "clastix/kamaji:") {
			kamajiImage = i.Ref
		}
	}
	h := &releaseHelm{n: n, holdRelease: CertManagerRelease, holdFor: kamajiImage}
	e.Helm = h
	ran := &stepRecorder{}
	e.Steps = ran
	if _, err := (kamajiStage{}).Run(ctx, e); err != nil {
		t.Fatal(err)
	}
	ran.didWhatThePlanSays(t, func() (steps.Step, error) { return kamajiStage{}.steps(e, new(string)), nil })
	if !h.overlapped {
		t.Errorf("cert-manager's install ended before %s was imported: the next release's images do not go in beside it:\n%s",
			kamajiImage, strings.Join(n.events, "\n"))
	}
	if e.Preload.preloadFor(stageKamaji, "", images.Management) != nil {
		t.Errorf("the Runner would import kamaji-stage images of no release: %q", e.Preload.preloadFor(stageKamaji, "", images.Management))
	}
	checked := 0
	for _, i := range e.Preload.Images {
		if i.Stage != stageKamaji || !i.Bundled() {
			continue
		}
		if i.Release != CertManagerRelease && i.Release != KamajiRelease {
			t.Errorf("%s: release %q is none the stage installs, so nothing imports it", i.Ref, i.Release)
			continue
		}
		imported := indexOf(n.events, "import "+e.controlPlaneContainer()+" "+i.Ref)
		install := indexOf(n.events, "helm "+i.Release)
		if imported < 0 || install < 0 || imported > install {
			t.Errorf("%s imported at event %d, release %s installed at %d:\n%s", i.Ref, imported, i.Release, install, strings.Join(n.events, "\n"))
		}
		checked++
	}
	if checked < 6 {
		t.Errorf("only %d kamaji-stage images checked", checked)
	}
}
