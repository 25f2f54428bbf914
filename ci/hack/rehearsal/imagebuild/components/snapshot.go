package components

import (
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"
)

// The images of the programs built from git snapshots, laid out as their
// upstream builds lay them out (cited per image).

// NonrootUser is distroless static's and Chainguard static's nonroot user
// (65532, Passwd above). Charts that set runAsNonRoot need a numeric one.
const NonrootUser = "65532"

// Kamaji is clastix/kamaji:<tag> as goreleaser's ko pipe makes it
// (kamaji .goreleaser.yaml:28-39 kos, bare; goreleaser internal/pipe/ko/
// ko.go: base image cgr.dev/chainguard/static unless set, the image built
// by ko's build package): ko v0.18.1 puts the binary at /ko-app/kamaji
// (pkg/build/gobuild.go:1058 appDir, :575 appFilename of the import path)
// as the entrypoint with no command (:1149-1150), appends /ko-app to PATH
// (:1168 updatePath) and sets KO_DATA_PATH=/var/run/ko (:688, :1169).
// Chainguard static's user is nonroot 65532, and kamaji's chart needs a
// non-root one (charts/kamaji/values.yaml:61-62 podSecurityContext
// runAsNonRoot) and passes only args (templates/controller.yaml:
// `manager`, …). The static base stands in for Chainguard's.
func Kamaji(ref, source, binary string) imagespec.Spec {
	return imagespec.Spec{
		Ref:        ref,
		Base:       StaticBaseRef,
		Files:      []imagespec.File{{Dest: "/ko-app/kamaji", Mode: 0o755, Src: binary}},
		Env:        []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/ko-app", "KO_DATA_PATH=/var/run/ko"},
		User:       NonrootUser,
		Entrypoint: []string{"/ko-app/kamaji"},
		Source:     source,
	}
}

// hamiFiles are the snapshot's files HAMi's image copies (docker/
// Dockerfile.hamimaster:26-30), image path → path in the source tree.
var hamiFiles = [][2]string{
	{"/k8s-vgpu/LICENSE", "LICENSE"},
	{"/k8s-vgpu/bin/entrypoint.sh", "docker/entrypoint.sh"},
	{"/k8s-vgpu/bin/vgpu-init.sh", "docker/vgpu-init.sh"},
	{"/k8s-vgpu/lib/nvidia/ld.so.preload", "lib/nvidia/ld.so.preload"}, // COPY ./lib /k8s-vgpu/lib: its only file
}

// hamiBinaries are the binaries `make all` writes to bin/ (HAMi v2.10.0 Makefile:53-57).
var hamiBinaries = []string{"scheduler", "vGPUmonitor", "nvidia-device-plugin"}

// HAMi is docker.io/projecthami/hami:<version> as HAMi's release builds it
// (docker/Dockerfile.hamimaster at v2.10.0, .github/workflows/
// call-release-image.yaml:118): the binaries in /k8s-vgpu/bin (:27), the
// scripts, LICENSE and lib (:26-30), the NVIDIA environment (:19-21),
// PATH=/k8s-vgpu/bin:$PATH (:33) and ENTRYPOINT ["/bin/bash", "-c",
// "entrypoint.sh  $DEST_DIR"] (:35; exec form, so the builder does not
// expand $DEST_DIR — bash does, at run time, where it is unset; the chart
// sets command: instead, templates/scheduler/deployment.yaml:101-102).
// base is the iptables base (Debian bookworm with bash and glibc), in
// place of nvidia/cuda:13.3.1-base-ubuntu22.04 (:12). HAMi-core's
// libvgpu.so (:31) is not there: it needs the CUDA toolkit to build.
func HAMi(ref, version, source, binDir, tree, base string) imagespec.Spec {
	var files []imagespec.File
	for _, b := range hamiBinaries {
		files = append(files, imagespec.File{Dest: "/k8s-vgpu/bin/" + b, Mode: 0o755, Src: filepath.Join(binDir, b)})
	}
	for _, f := range hamiFiles {
		mode := fs.FileMode(0o644)
		if strings.HasSuffix(f[0], ".sh") {
			mode = 0o755
		}
		files = append(files, imagespec.File{Dest: f[0], Mode: mode, Src: filepath.Join(tree, f[1])})
	}
	return imagespec.Spec{
		Ref:   ref,
		Base:  base,
		Files: files,
		Env: []string{
			"NVIDIA_DISABLE_REQUIRE=true",
			"NVIDIA_VISIBLE_DEVICES=all",
			"NVIDIA_DRIVER_CAPABILITIES=compute,utility",
			"PATH=/k8s-vgpu/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		},
		Entrypoint: []string{"/bin/bash", "-c", "entrypoint.sh  $DEST_DIR"},
		Source:     source,
	}
}

// certManagerPath is where a cert-manager command's image holds it
// (hack/containers/Containerfile.<name> at v1.18.3: /app/cmd/<name>/
// <name>, except startupapicheck's /startupapicheck).
func certManagerPath(name string) string {
	if name == "startupapicheck" {
		return "/startupapicheck"
	}
	return "/app/cmd/" + name + "/" + name
}

// CertManager is quay.io/jetstack/cert-manager-<name>:<version>
// (hack/containers/Containerfile.<name> at v1.18.3: FROM the static base
// — gcr.io/distroless/static-debian12, make/containers.mk:16,
// make/base_images.mk:3 — USER 1000, the binary at CertManagerPath and
// as ENTRYPOINT; the chart passes only args). The /licenses files, made
// by make/licenses.mk from go-licenses output, are not there.
func CertManager(ref, name, source, binary string) imagespec.Spec {
	p := certManagerPath(name)
	return imagespec.Spec{
		Ref:        ref,
		Base:       StaticBaseRef,
		Files:      []imagespec.File{{Dest: p, Mode: 0o755, Src: binary}},
		User:       "1000",
		Entrypoint: []string{p},
		Source:     source,
	}
}

// Certgen stands in for docker.io/liangjw/kube-webhook-certgen:v1.1.1 as
// ingress-nginx's images/kube-webhook-certgen/rootfs/Dockerfile at
// 54523641 lays it out (:23-28: FROM distroless/static:nonroot, WORKDIR /,
// /kube-webhook-certgen, USER 65532:65532, ENTRYPOINT).
func Certgen(ref, source, binary string) imagespec.Spec {
	return imagespec.Spec{
		Ref:        ref,
		Base:       StaticBaseRef,
		Files:      []imagespec.File{{Dest: "/kube-webhook-certgen", Mode: 0o755, Src: binary}},
		User:       NonrootUser + ":" + NonrootUser,
		Entrypoint: []string{"/kube-webhook-certgen"},
		Source:     source,
	}
}
