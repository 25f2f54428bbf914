package imagebuild

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gobuild"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// nvmlMockSnapshot is NVIDIA's mock NVML library at the lab's pin: no tag
// (the fix the lab needs came after v0.3.0, ci/render's nvmlMockCommit says
// which), the commit is the pin; its time read with `git log -1
// --format=%at` in the fetched snapshot.
var nvmlMockSnapshot = Snapshot{Repo: "NVIDIA/k8s-test-infra",
	Commit: "0eeb2ee5d551de17e2af4257c205cb83c135e99e", Time: time.Unix(1785929149, 0).UTC()}

// nvmlMockTag is the tag upstream's publish workflow gives the commit's
// image (render.NVMLMockImage): sha-<7 hex digits>.
var nvmlMockTag = "sha-" + nvmlMockSnapshot.Commit[:7]

// nvmlMockPaths are what the build reads of the snapshot: the module, its
// vendored dependencies and the packages (the bridge imports
// pkg/gpu/mocknvml/engine and pkg/fmcoord).
var nvmlMockPaths = []string{"go.mod", "go.sum", "vendor", "pkg"}

// nvmlMockAliases are the Makefile's linker aliases from NVML's unversioned
// names to the versioned ones the library exports
// (pkg/gpu/mocknvml/Makefile:65-79@0eeb2ee5 VERSION_ALIASES).
var nvmlMockAliases = []string{
	"nvmlDeviceGetPciInfo=nvmlDeviceGetPciInfo_v3",
	"nvmlDeviceGetHandleByPciBusId=nvmlDeviceGetHandleByPciBusId_v2",
	"nvmlDeviceGetNvLinkRemotePciInfo=nvmlDeviceGetNvLinkRemotePciInfo_v2",
	"nvmlDeviceRemoveGpu=nvmlDeviceRemoveGpu_v2",
	"nvmlDeviceGetGridLicensableFeatures=nvmlDeviceGetGridLicensableFeatures_v4",
	"nvmlEventSetWait=nvmlEventSetWait_v2",
	"nvmlDeviceGetAttributes=nvmlDeviceGetAttributes_v2",
	"nvmlComputeInstanceGetInfo=nvmlComputeInstanceGetInfo_v2",
	"nvmlDeviceGetComputeRunningProcesses=nvmlDeviceGetComputeRunningProcesses_v3",
	"nvmlDeviceGetGraphicsRunningProcesses=nvmlDeviceGetGraphicsRunningProcesses_v3",
	"nvmlDeviceGetMPSComputeRunningProcesses=nvmlDeviceGetMPSComputeRunningProcesses_v3",
	"nvmlDeviceGetGpuInstancePossiblePlacements=nvmlDeviceGetGpuInstancePossiblePlacements_v2",
	"nvmlVgpuInstanceGetLicenseInfo=nvmlVgpuInstanceGetLicenseInfo_v2",
	"nvmlDeviceGetDriverModel=nvmlDeviceGetDriverModel_v2",
}

// nvmlMockLib is the library's file name (Makefile:22-25 LIB_REALNAME).
var nvmlMockLib = "libnvidia-ml.so." + render.NVMLMockLibVersion

// nvmlMockProgram builds the library as the Makefile's GO_BUILD_CMD does
// (:90-92: CGO_LDFLAGS_ALLOW='--defsym|-soname', CGO_LDFLAGS the aliases
// and -Wl,-soname,libnvidia-ml.so.1 (:83), go build -buildmode=c-shared -o
// $(LIB_REALNAME) ./bridge), from the vendored dependencies as the image's
// build does (deployments/nvml-mock/Dockerfile:18-22 copies vendor/ and
// runs make), without the Makefile's two-pass sizing: the padding is
// padding.go's default 14 MiB, not the published library's 14 MiB in all.
func nvmlMockProgram(tree string) gobuild.Program {
	s := nvmlMockSnapshot
	var ld []string
	for _, a := range nvmlMockAliases {
		ld = append(ld, "-Wl,--defsym,"+a)
	}
	ld = append(ld, "-Wl,-soname,libnvidia-ml.so.1")
	return gobuild.Program{
		Name:            "nvml-mock-" + s.Commit[:8],
		Module:          "github.com/NVIDIA/k8s-test-infra",
		Version:         s.Commit,
		Packages:        []string{"./pkg/gpu/mocknvml/bridge"},
		CGO:             true,
		BuildMode:       "c-shared",
		Output:          nvmlMockLib,
		CGOLDFlags:      strings.Join(ld, " "),
		CGOLDFlagsAllow: "--defsym|-soname",
		Vendored:        true,
		Tree:            tree,
		TreeKey:         s.Commit,
	}
}

// nvmlMockImage is the image spec: the library where the published image
// holds it (deployments/nvml-mock/Dockerfile:41@0eeb2ee5, /usr/local/lib),
// on the iptables base (sh, coreutils: what the lab's DaemonSet runs).
func nvmlMockImage(ref, binDir, base string) imagespec.Spec {
	return imagespec.Spec{
		Ref:  ref,
		Base: base,
		Files: []imagespec.File{{
			Dest: render.NVMLMockImageLibDir + "/" + nvmlMockLib, Mode: 0o755, Src: filepath.Join(binDir, nvmlMockLib),
		}},
		Source: snapshotSource(nvmlMockSnapshot, "pkg/gpu/mocknvml/bridge"),
	}
}

// nvmlMockSpec builds the library from the snapshot and its image.
func (b *builder) nvmlMockSpec(rec recipe) (imagespec.Spec, error) {
	tree, err := b.snapshotTree(nvmlMockSnapshot, nvmlMockPaths, nil)
	if err != nil {
		return imagespec.Spec{}, err
	}
	bin, err := b.program(nvmlMockProgram(tree), "3–5 min on 2 busy cores")
	if err != nil {
		return imagespec.Spec{}, fmt.Errorf("image %s: %w", rec.Ref, err)
	}
	base, err := b.iptablesBase()
	if err != nil {
		return imagespec.Spec{}, err
	}
	return nvmlMockImage(rec.Ref, bin, base), nil
}

// nvmlMockDifference is how the rehearsal's image differs from the
// published one.
func nvmlMockDifference() string {
	return render.NVMLMockImage + " holds only the mock NVML library (" + render.NVMLMockImageLibDir + "/" + nvmlMockLib +
		"), built from NVIDIA/k8s-test-infra's git history at " + nvmlMockSnapshot.Commit[:8] +
		" with its vendored dependencies and the Makefile's linker aliases and soname, padded by padding.go's default 14 MiB rather than to 14 " +
		"MiB in all; the published image also carries mock CUDA, InfiniBand and PCI libraries, nvidia-smi and upstream's scripts, none of " +
		"which the lab's DaemonSet uses; it sits on the iptables base (Debian bookworm) as the published one sits on debian:bookworm-slim"
}
