package lab

import (
	"sort"

	"k8s.io/apimachinery/pkg/util/version"

	kinddefaults "sigs.k8s.io/kind/pkg/apis/config/defaults"
)

// KindModuleVersion is the sigs.k8s.io/kind version in go.mod; a test keeps
// the two in step.
const KindModuleVersion = "v0.33.0"

// Versions pins every external component of the lab. DefaultVersions is the
// only place defaults live; `labctl plan` prints the resolved set.
type Versions struct {
	// KindNodeImage is the management cluster's node image (kind's own default).
	KindNodeImage string `json:"kindNodeImage,omitempty"`
	// Kubernetes is the tenant control-plane and worker version.
	Kubernetes string `json:"kubernetes,omitempty"`
	// WorkerNodeImage is the tenants' worker node image; empty means the
	// image kind publishes for Kubernetes (WorkerImages). A runner whose
	// registry serves rebuilt node images names them here, as it does the
	// management node with KindNodeImage: a digest pin is of one manifest.
	WorkerNodeImage string `json:"workerNodeImage,omitempty"`
	// KamajiChart is the clastix/kamaji chart version ("0.0.0+latest" is the
	// only current one; the old 1.0.0 chart supports Kubernetes <= v1.30).
	KamajiChart string `json:"kamajiChart,omitempty"`
	// KamajiImage is the Kamaji controller image tag.
	KamajiImage string `json:"kamajiImage,omitempty"`
	// CertManager is the jetstack/cert-manager chart version.
	CertManager string `json:"certManager,omitempty"`
	// HAMiChart is the hami chart version.
	HAMiChart string `json:"hamiChart,omitempty"`
	// HAMiImage is the HAMi scheduler and device-plugin image tag.
	HAMiImage string `json:"hamiImage,omitempty"`
	// HAMiMockDevicePlugin is the projecthami/mock-device-plugin image tag.
	HAMiMockDevicePlugin string `json:"hamiMockDevicePlugin,omitempty"`
	// Konnectivity is the apiserver-network-proxy version of server and agent.
	Konnectivity string `json:"konnectivity,omitempty"`
}

// WorkerImages maps each supported tenant Kubernetes version to the
// kindest/node image published for kind v0.33.0 (pinned by digest). A tenant
// version is supported when Kamaji accepts it (minor <= kamajiMaxMinor) and a
// worker image exists for it.
var WorkerImages = map[string]string{
	"v1.34.11": "kindest/node:v1.34.11@sha256:44e222ee2132dab25ff87301682f89eb82c7880ea3a1bf543bfe9708fd08d67d",
	"v1.35.8":  "kindest/node:v1.35.8@sha256:07b2536e30b803ed61d1677a79df6115f798ce64c80f9e22f6ed45afd09323c0",
	"v1.36.4":  "kindest/node:v1.36.4@sha256:099e049362a1526b2db71494e1947aae99bd16290d7c895f2b7ea312e3cbfaed",
}

// kamajiMaxMinor is the newest tenant minor Kamaji 26.8.2-edge accepts
// (upgrade.KubeadmVersion = v1.36.0).
const kamajiMaxMinor = 36

// DefaultVersions returns the pinned versions.
func DefaultVersions() Versions {
	return Versions{
		KindNodeImage:        kinddefaults.Image,
		Kubernetes:           "v1.36.4",
		KamajiChart:          "0.0.0+latest",
		KamajiImage:          "26.8.2-edge",
		CertManager:          "v1.18.3",
		HAMiChart:            "2.10.0",
		HAMiImage:            "v2.10.0",
		HAMiMockDevicePlugin: "1.0.1",
		Konnectivity:         "v0.36.0",
	}
}

// SupportedKubernetes lists the accepted tenant versions, sorted.
func SupportedKubernetes() []string {
	out := make([]string, 0, len(WorkerImages))
	for v := range WorkerImages {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return semverLess(out[i], out[j]) })
	return out
}

// WorkerImage is the tenants' worker node image: WorkerNodeImage when set,
// else the kindest/node image published for the tenant version.
func (v Versions) WorkerImage() string {
	if v.WorkerNodeImage != "" {
		return v.WorkerNodeImage
	}
	return WorkerImages[v.Kubernetes]
}

// KubeSchedulerTag is the kube-scheduler image tag HAMi's chart must use: the
// tenant's own version (HAMi's default would be the management cluster's).
func (v Versions) KubeSchedulerTag() string { return v.Kubernetes }

// withDefaults fills every empty field from DefaultVersions.
func (v Versions) withDefaults() Versions {
	d := DefaultVersions()
	fill := func(dst *string, def string) {
		if *dst == "" {
			*dst = def
		}
	}
	fill(&v.KindNodeImage, d.KindNodeImage)
	fill(&v.Kubernetes, d.Kubernetes)
	fill(&v.KamajiChart, d.KamajiChart)
	fill(&v.KamajiImage, d.KamajiImage)
	fill(&v.CertManager, d.CertManager)
	fill(&v.HAMiChart, d.HAMiChart)
	fill(&v.HAMiImage, d.HAMiImage)
	fill(&v.HAMiMockDevicePlugin, d.HAMiMockDevicePlugin)
	fill(&v.Konnectivity, d.Konnectivity)
	return v
}

// minorOf returns the minor of a semantic version 1.MINOR.PATCH (with or
// without "v"), or -1.
func minorOf(v string) int {
	sv, err := version.ParseSemantic(v)
	if err != nil || sv.Major() != 1 {
		return -1
	}
	return int(sv.Minor())
}

// semverLess orders semantic versions by precedence; a string that is no
// semantic version sorts by its spelling (WorkerImages' keys all are).
func semverLess(a, b string) bool {
	va, errA := version.ParseSemantic(a)
	vb, errB := version.ParseSemantic(b)
	if errA != nil || errB != nil {
		return a < b
	}
	return va.LessThan(vb)
}
