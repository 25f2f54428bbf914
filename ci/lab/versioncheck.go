package lab

import (
	"fmt"
	"strings"

	"github.com/distribution/reference"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
)

// Every versions.* value ends up as an argument of docker, kind or helm, or
// inside one (`helm --set image.tag=<kamajiImage>`), so each is checked
// against the grammar of what it names: an image reference, an image tag or
// a chart version. None of those grammars allows a leading '-' (an option to
// the program that gets it), whitespace, or the ',' and '=' that would add
// values to a `helm --set`.

// tagRepository is any valid repository: reference.WithTag checks a tag
// against the OCI grammar only, whatever the repository.
var tagRepository, _ = reference.ParseNormalizedNamed("gpu-lab/tag-check")

func (l *Lab) validateVersions(p *field.Path) field.ErrorList {
	var errs field.ErrorList
	v, d := l.Versions, DefaultVersions()
	if _, ok := WorkerImages[v.Kubernetes]; !ok {
		errs = append(errs, field.Invalid(p.Child("kubernetes"), v.Kubernetes, fmt.Sprintf(
			"unsupported tenant Kubernetes version: use one of %s (a kindest/node image must exist for kind "+
				"%s and Kamaji %s accepts minors up to 1.%d)",
			strings.Join(SupportedKubernetes(), ", "), KindModuleVersion, d.KamajiImage, kamajiMaxMinor)))
	}
	if err := checkImageReference(v.KindNodeImage); err != nil {
		errs = append(errs, field.Invalid(p.Child("kindNodeImage"), v.KindNodeImage, fmt.Sprintf(
			"must be an image reference such as %q (%v)", d.KindNodeImage, err)))
	}
	errs = append(errs, checkWorkerNodeImage(p.Child("workerNodeImage"), v)...)
	for _, c := range []struct{ name, value, def string }{
		{"kamajiChart", v.KamajiChart, d.KamajiChart},
		{"certManager", v.CertManager, d.CertManager},
		{"hamiChart", v.HAMiChart, d.HAMiChart},
	} {
		if err := checkChartVersion(c.value); err != nil {
			errs = append(errs, field.Invalid(p.Child(c.name), c.value, fmt.Sprintf(
				"must be one chart version in SemVer 2 form (MAJOR.MINOR.PATCH, optionally with a leading v, "+
					"-prerelease and +build), such as %q (%v)", c.def, err)))
		}
	}
	for _, c := range []struct{ name, value, def string }{
		{"kamajiImage", v.KamajiImage, d.KamajiImage},
		{"hamiImage", v.HAMiImage, d.HAMiImage},
		{"hamiMockDevicePlugin", v.HAMiMockDevicePlugin, d.HAMiMockDevicePlugin},
		{"konnectivity", v.Konnectivity, d.Konnectivity},
	} {
		if err := checkImageTag(c.value); err != nil {
			errs = append(errs, field.Invalid(p.Child(c.name), c.value, fmt.Sprintf(
				"must be an image tag such as %q: letters, digits, '_', '.' and '-', starting with a letter, "+
					"digit or '_', at most 128 characters", c.def)))
		}
	}
	return errs
}

// checkWorkerNodeImage holds a set worker node image to an image reference
// whose tag, if it has one, is the tenants' version: kubeadm joins the
// workers at versions.kubernetes, and a node image of another version
// would join kubelets of that other version.
func checkWorkerNodeImage(p *field.Path, v Versions) field.ErrorList {
	if v.WorkerNodeImage == "" {
		return nil
	}
	ref, err := reference.ParseNormalizedNamed(v.WorkerNodeImage)
	if err != nil {
		return field.ErrorList{field.Invalid(p, v.WorkerNodeImage, fmt.Sprintf(
			"must be an image reference such as %q (%v), or left out for kind's published image", WorkerImages[DefaultVersions().Kubernetes], err))}
	}
	if t, ok := ref.(reference.Tagged); ok && t.Tag() != v.Kubernetes {
		return field.ErrorList{field.Invalid(p, v.WorkerNodeImage, fmt.Sprintf(
			"is tagged %s but the workers run versions.kubernetes %s: name a node image of %s, "+
				"or set versions.kubernetes to %s", t.Tag(), v.Kubernetes, v.Kubernetes, t.Tag()))}
	}
	return nil
}

// checkImageReference accepts what docker and kind accept as an image
// reference ("kindest/node:v1.35.0@sha256:…"), by the parser of the
// distribution project that Docker itself uses.
func checkImageReference(s string) error {
	_, err := reference.ParseNormalizedNamed(s)
	return err
}

// checkImageTag accepts an OCI tag: [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}.
func checkImageTag(s string) error {
	_, err := reference.WithTag(tagRepository, s)
	return err
}

// checkChartVersion accepts one exact SemVer 2 version, as Helm requires of a
// chart's version; `0.0.0+latest` (Kamaji's chart) has build metadata. The
// lab pins releases, so helm's ranges ("^2.0.0") are refused, and so is
// surrounding whitespace, which the Kubernetes parser would ignore but helm
// would be handed.
func checkChartVersion(s string) error {
	if strings.TrimSpace(s) != s {
		return fmt.Errorf("leading or trailing whitespace")
	}
	_, err := version.ParseSemantic(s)
	return err
}
