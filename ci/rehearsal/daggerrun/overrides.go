package daggerrun

import (
	"fmt"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/rehearsal/registry"
)

// NodeImageOverride is the --versions override that names the lab's node
// image (nodeImage, the bundle's digest-pinned reference) by the digest
// the registry serves it under: a node image built here cannot have the
// published manifest, so a pull by the pin fails `manifest unknown`
// (ci/rehearsal ModuleAdaptations). Any other digest-pinned image served
// under another digest fails: no module option renames it.
func NodeImageOverride(pushed []registry.Pushed, nodeImage string) (string, error) {
	override := ""
	var stray []string
	for _, p := range pushed {
		if p.PinMatches() {
			continue
		}
		name, _, _ := strings.Cut(p.Ref, "@")
		if p.Ref == nodeImage {
			override = "kindNodeImage=" + name + "@" + p.Digest
			continue
		}
		stray = append(stray, fmt.Sprintf("%s (served as %s)", p.Ref, p.Digest))
	}
	if len(stray) > 0 {
		return "", fmt.Errorf("the registry serves %s under another digest than the pin, and only the node image (%s) can be renamed with --versions", strings.Join(stray, ", "), nodeImage)
	}
	return override, nil
}
