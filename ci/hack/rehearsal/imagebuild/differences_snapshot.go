package imagebuild

import "github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/components"

// snapshotDifferences are the differences of the images built from git
// snapshots that the plan holds: only those, so a run of some images
// lists no adaptation of the others.
func snapshotDifferences(p Plan) []string {
	kinds := map[kind]bool{}
	for _, r := range append(append([]recipe(nil), p.Bundle...), p.Extra...) {
		kinds[r.Kind] = true
	}
	var out []string
	if kinds[kindKamaji] || kinds[kindHAMi] || kinds[kindCertManager] || kinds[kindCertgen] {
		out = append(out, "clastix/kamaji, docker.io/projecthami/hami, quay.io/jetstack/cert-manager-* and the kube-webhook-certgen stand-in "+
			"are built from git snapshots of their repositories at the pinned tag's commit (the module proxy here refuses these modules, 403), "+
			"with the upstream go.mod and go.sum deciding every dependency; Go is this machine's toolchain, not the one each release was built with")
	}
	if kinds[kindKamaji] {
		out = append(out, "clastix/kamaji:"+kamajiSnapshot.Tag+": built with go build as goreleaser's ko pipe builds it (CGO_ENABLED=0, "+
			"-trimpath, .goreleaser.yaml's ldflags with BuildTime the commit's time rather than the build's) and laid out as ko lays it out "+
			"(/ko-app/kamaji, KO_DATA_PATH, PATH), on the static stand-in with user "+components.NonrootUser+
			" instead of cgr.dev/chainguard/static; no empty /var/run/ko layer (kamaji has no kodata), no SBOM")
	}
	if kinds[kindHAMi] {
		out = append(out,
			"docker.io/projecthami/hami:"+hamiSnapshot.Tag+" lacks HAMi-core's /k8s-vgpu/lib/nvidia/libvgpu.so."+hamiVersion+
				" (docker/Dockerfile.hamimaster:31): it is built from the libvgpu submodule (Project-HAMi/HAMi-core at b216ba1b, a submodule, not in "+
				"HAMi's tree) against the CUDA toolkit's headers (HAMi-core's CMakeLists.txt includes ${CUDA_HOME}/include, default /usr/local/cuda; "+
				"HAMi builds it in nvidia/cuda's devel image, docker/Dockerfile:12-19), which neither the module proxy nor Debian's main packages "+
				"(the only component configured here) provide; HAMi's device plugin, its one user, mounts libvgpu.so.<version>, else libvgpu.so, "+
				"into every GPU container (pkg/device-plugin/nvidiadevice/nvinternal/plugin/util.go:45-50), so the image holds an empty shared "+
				"object there instead (libvgpu.go): it preloads silently, and the lab's GPU containers get no HAMi-core enforcement from this image",
			"docker.io/projecthami/hami:"+hamiSnapshot.Tag+" sits on the iptables base (Debian bookworm: bash, glibc 2.36) instead of "+
				"nvidia/cuda:13.3.1-base-ubuntu22.04 (no CUDA compat libraries); its binaries are linked with cgo against this machine's bookworm "+
				"glibc as the golang:1.26.6-bookworm build image links them; buildDate is the commit time, not the build's, and there is no "+
				"`version` label",
		)
	}
	if kinds[kindCertManager] {
		out = append(out, "quay.io/jetstack/cert-manager-*:"+certManagerSnapshot.Tag+
			" lack /licenses/LICENSE and /licenses/LICENSES (make/licenses.mk generates them with go-licenses) and sit on the static stand-in "+
			"instead of gcr.io/distroless/static-debian12")
	}
	if kinds[kindCertgen] {
		out = append(out, "docker.io/liangjw/kube-webhook-certgen:"+certgenTag+
			" is a stand-in: no liangjw repository is stored, so the rehearsal builds kubernetes/ingress-nginx's "+
			"images/kube-webhook-certgen/rootfs at "+certgenSnapshot.Commit[:8]+", the source of ingress-nginx's kube-webhook-certgen "+certgenTag+
			" (ingress-nginx d74fa2f5 moved its chart to that tag the same day). It has every flag HAMi's chart passes (create --cert-name "+
			"--key-name --host --namespace --secret-name; patch --webhook-name --namespace --patch-validating --secret-name) and "+
			"admissionregistration/v1; jet/kube-webhook-certgen's newest tag, v1.5.2, has the same flags but admissionregistration/v1beta1, which "+
			"Kubernetes ≥ 1.22 removed. Built with this machine's Go instead of go 1.16 (rootfs/Dockerfile:15); on the static stand-in for "+
			"distroless/static:nonroot")
	}
	if kinds[kindNVMLMock] {
		out = append(out, nvmlMockDifference())
	}
	return out
}
