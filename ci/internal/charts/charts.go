package charts

import (
	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// Chart repositories.
const (
	JetstackRepo = "https://charts.jetstack.io"
	ClastixRepo  = "https://clastix.github.io/charts"
)

// CertManagerName is the cert-manager chart's name in JetstackRepo.
const CertManagerName = "cert-manager"

// CertManager is the cert-manager chart at the lab's pinned version.
func CertManager(l *lab.Lab) images.Chart {
	return images.Chart{Name: CertManagerName, Repo: JetstackRepo, Version: l.Versions.CertManager}
}

// Kamaji is the clastix/kamaji chart at the lab's pinned version.
func Kamaji(l *lab.Lab) images.Chart {
	return images.Chart{Name: images.KamajiChartName, Repo: ClastixRepo, Version: l.Versions.KamajiChart}
}

// HAMi is the hami chart at the lab's pinned version.
func HAMi(l *lab.Lab) images.Chart {
	return images.Chart{Name: render.HAMiChartName, Repo: render.HAMiChartRepo, Version: l.Versions.HAMiChart}
}

// Pinned are the charts the lab installs, in installation order: what
// `labctl images save` puts into a bundle and what the stages install.
func Pinned(l *lab.Lab) []images.Chart {
	return []images.Chart{CertManager(l), Kamaji(l), HAMi(l)}
}
