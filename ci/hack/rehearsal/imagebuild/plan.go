package imagebuild

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/gpu-lab/gpu-lab/ci/images"
)

// Plan is what the rehearsal builds for a lab.
type Plan struct {
	// Nodes are the kind node images, in the order listed (management
	// node first).
	Nodes []recipe
	// Bundle are the images a bundle of the lab holds besides the node
	// images (images.BundleRefs), each with its recipe.
	Bundle []recipe
	// Kubernetes are the versions whose release binaries are needed.
	Kubernetes []string
	// Extra are images built on request (Only) that the lab's bundle does
	// not hold, such as a node image's preloads: built, never bundled.
	Extra []recipe
}

// PlanFor derives the plan from the lab's image list (images.List).
func PlanFor(list []images.Image) Plan {
	var p Plan
	versions := map[string]bool{}
	for _, ref := range images.BundleRefs(list) {
		r := recipeFor(ref)
		switch r.Kind {
		case kindNode:
			p.Nodes = append(p.Nodes, r)
			versions[r.Version] = true
		case kindServer:
			versions[r.Version] = true
			p.Bundle = append(p.Bundle, r)
		default:
			p.Bundle = append(p.Bundle, r)
		}
	}
	for v := range versions {
		p.Kubernetes = append(p.Kubernetes, v)
	}
	sort.Strings(p.Kubernetes)
	return p
}

// nodePreloads are the images a node image of a Kubernetes version holds,
// by kind's rule (pkg/build/nodeimage/buildcontext.go:207-253 at v0.33.0):
// `kubeadm config images list` for the version without its pause image,
// the containerd sandbox image instead, then the default CNI images and
// the default storage images.
func nodePreloads(kubeadmImages []string, sandbox string, cni, storage []string) []string {
	var out []string
	for _, i := range kubeadmImages {
		if !strings.Contains(i, "pause") {
			out = append(out, i)
		}
	}
	out = append(out, sandbox)
	out = append(out, cni...)
	return append(out, storage...)
}

// parseKubeadmImages reads `kubeadm config images list` output: one
// reference per line.
func parseKubeadmImages(out string) ([]string, error) {
	var refs []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.ContainsAny(line, " \t") || !strings.Contains(line, ":") {
			return nil, fmt.Errorf("kubeadm config images list: %q is not an image reference", line)
		}
		refs = append(refs, line)
	}
	if len(refs) == 0 {
		return nil, fmt.Errorf("kubeadm config images list printed no image")
	}
	return refs, nil
}

// localTag is the name a node image is built under: the pinned reference
// without its digest (a local build cannot have the published digest).
// The bundle's entry keeps the pinned reference and points it at this
// image (images.Load names a digest-pinned entry by its image ID).
func localTag(ref string) string {
	name, _, _ := strings.Cut(ref, "@")
	return name
}

// Only is the plan restricted to refs (a node image also matches by its
// tag without the digest); versions stay, as the images need them. A ref
// the plan does not hold (a node's preload) becomes an Extra.
func (p Plan) Only(refs []string) Plan {
	want := map[string]bool{}
	for _, r := range refs {
		want[images.Normalize(r)] = true
	}
	known := map[string]bool{}
	for _, r := range append(append([]recipe(nil), p.Nodes...), p.Bundle...) {
		known[images.Normalize(r.Ref)], known[images.Normalize(localTag(r.Ref))] = true, true
	}
	var extra []recipe
	for _, r := range refs {
		if !known[images.Normalize(r)] {
			extra = append(extra, recipeFor(r))
		}
	}
	keep := func(rs []recipe) []recipe {
		var out []recipe
		for _, r := range rs {
			if want[images.Normalize(r.Ref)] || want[images.Normalize(localTag(r.Ref))] {
				out = append(out, r)
			}
		}
		return out
	}
	return Plan{Nodes: keep(p.Nodes), Bundle: keep(p.Bundle), Kubernetes: p.Kubernetes, Extra: extra}
}

// Write prints the plan: each image and how it is built.
func (p Plan) Write(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "IMAGE\tHOW\tVERSION\tNOTE")
	for _, r := range append(append(append([]recipe(nil), p.Nodes...), p.Bundle...), p.Extra...) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Ref, r.Kind, r.Version, r.Why)
	}
	tw.Flush()
	fmt.Fprintf(w, "Kubernetes release binaries: %s\n", strings.Join(p.Kubernetes, ", "))
}
