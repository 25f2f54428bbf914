// Package charts owns which helm charts the lab installs: each chart's
// name, repository and pinned version (Pinned, CertManager, Kamaji, HAMi),
// as data any package can ask for without rendering values or building a
// helm command line. ci/stages adds how each is installed (release,
// namespace, values, post-renderer); `labctl images` saves exactly these
// into a bundle.
//
// It reads the versions from ci/lab, the HAMi chart's name from ci/render
// and the Chart type and Kamaji's chart name from ci/images, so ci/images'
// own (package images) tests cannot import it; an external test package can.
package charts
