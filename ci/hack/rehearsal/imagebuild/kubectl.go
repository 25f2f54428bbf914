package imagebuild

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/version"
)

// kubectlVersion picks the lab's Kubernetes version whose kubectl stands in
// for clastix/kubectl:<minor>: the one of that minor, else the nearest one
// minor away (kubectl is supported within one minor of the server:
// kubernetes.io version-skew-policy "kubectl"), preferring the newer. exact
// says whether the minor matched; a stand-in of another minor is listed
// among the differences. Building kubectl of a minor the lab lacks would be
// another Kubernetes build for one binary.
func kubectlVersion(minor string, lab []string) (v string, exact, ok bool) {
	want, err := version.ParseGeneric(minor)
	if err != nil {
		return "", false, false
	}
	best := ""
	for _, l := range lab {
		lv, err := version.ParseGeneric(l)
		if err != nil || lv.Major() != want.Major() {
			continue
		}
		d := int(lv.Minor()) - int(want.Minor())
		switch {
		case d == 0:
			return l, true, true
		case d == 1 || (d == -1 && best == ""):
			best = l
		}
	}
	return best, false, best != ""
}

// kubectlDifferences names each clastix/kubectl stand-in built from
// another minor's kubectl.
func kubectlDifferences(p Plan) []string {
	var out []string
	for _, r := range p.Bundle {
		if r.Kind != kindKubectl {
			continue
		}
		if v, exact, ok := kubectlVersion(r.Version, p.Kubernetes); ok && !exact {
			out = append(out, fmt.Sprintf("%s holds kubectl %s: the lab builds no Kubernetes of minor %s, and kubectl is supported within one "+
				"minor of the server", r.Ref, v, r.Version))
		}
	}
	return out
}
