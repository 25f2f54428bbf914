package images

import (
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// Which helm charts the lab installs: each chart's name, repository and
// pinned version, as data any package can ask for without rendering values
// or building a helm command line. ci/stages adds how each is installed
// (release, namespace, values, post-renderer); `labctl images save` puts
// exactly these into a bundle.

// Chart repositories.
const (
	jetstackRepo = "https://charts.jetstack.io"
	ClastixRepo  = "https://clastix.github.io/charts"
)

// CertManagerChartName is the cert-manager chart's name in JetstackRepo.
const CertManagerChartName = "cert-manager"

// CertManagerChart is the cert-manager chart at the lab's pinned version.
func CertManagerChart(l *lab.Lab) Chart {
	return Chart{Name: CertManagerChartName, Repo: jetstackRepo, Version: l.Versions.CertManager}
}

// KamajiChart is the clastix/kamaji chart at the lab's pinned version.
func KamajiChart(l *lab.Lab) Chart {
	return Chart{Name: KamajiChartName, Repo: ClastixRepo, Version: l.Versions.KamajiChart}
}

// HAMiChart is the hami chart at the lab's pinned version.
func HAMiChart(l *lab.Lab) Chart {
	return Chart{Name: render.HAMiChartName, Repo: render.HAMiChartRepo, Version: l.Versions.HAMiChart}
}

// PinnedCharts are the charts the lab installs, in installation order: what
// `labctl images save` puts into a bundle and what the stages install.
func PinnedCharts(l *lab.Lab) []Chart {
	return []Chart{CertManagerChart(l), KamajiChart(l), HAMiChart(l)}
}
