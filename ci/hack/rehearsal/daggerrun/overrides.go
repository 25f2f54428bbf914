package daggerrun

import (
	"fmt"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/registry"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// NodeImageOverrides are the --versions overrides that name the lab's node
// images — the management node (kindNodeImage) and the tenants' workers
// (workerNodeImage), the bundle's digest-pinned references — by the digest
// the registry serves them under: a node image built here cannot have the
// published manifest, so a pull by the pin fails `manifest unknown`
// (ci/hack/rehearsal ModuleAdaptations). Any other digest-pinned image served
// under another digest fails: no module option renames it.
func NodeImageOverrides(pushed []registry.Pushed, v lab.Versions) ([]string, error) {
	var overrides, stray []string
	for _, p := range pushed {
		if p.PinMatches() {
			continue
		}
		name, _, _ := strings.Cut(p.Ref, "@")
		renamed := false
		for _, o := range []struct{ field, ref string }{
			{"kindNodeImage", v.KindNodeImage},
			{"workerNodeImage", v.WorkerImage()},
		} {
			if p.Ref == o.ref {
				overrides, renamed = append(overrides, o.field+"="+name+"@"+p.Digest), true
			}
		}
		if !renamed {
			stray = append(stray, fmt.Sprintf("%s (served as %s)", p.Ref, p.Digest))
		}
	}
	if len(stray) > 0 {
		return nil, fmt.Errorf("the registry serves %s under another digest than the pin, "+
			"and only the node images (%s, %s) can be renamed with --versions", strings.Join(stray, ", "), v.KindNodeImage, v.WorkerImage())
	}
	return overrides, nil
}
