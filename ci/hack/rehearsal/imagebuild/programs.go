package imagebuild

import (
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gobuild"
)

// The Go programs besides Kubernetes, at the versions the lab's images
// name, built the way their upstream Makefiles build them.

// etcdProgram builds etcd, etcdctl and etcdutl of one release: the server
// module's main (go.etcd.io/etcd/server/v3 main.go), CGO_ENABLED=0 as
// etcd's scripts/build-binary.sh does. etcd stamps its git SHA, which a
// module zip does not know: it is left at its default.
func etcdProgram(version string) gobuild.Program {
	tools := version
	if v, ok := etcdToolsVersion[version]; ok {
		tools = v
	}
	return gobuild.Program{
		Name:    "etcd-" + version,
		Module:  "go.etcd.io/etcd/server/v3",
		Version: version,
		Require: map[string]string{
			"go.etcd.io/etcd/etcdctl/v3": tools,
			"go.etcd.io/etcd/etcdutl/v3": tools,
		},
		Packages: []string{"go.etcd.io/etcd/server/v3", "go.etcd.io/etcd/etcdctl/v3", "go.etcd.io/etcd/etcdutl/v3"},
		LDFlags:  "-s -w",
		Trimpath: true,
		Rename:   map[string]string{"server": "etcd"},
	}
}

// etcdToolsVersion maps an etcd release whose etcdctl and etcdutl
// modules the module proxy here does not serve (403 "not available" for
// go.etcd.io/etcd/etcdctl/v3 and etcdutl/v3 at v3.6.12; the
// server module is served) to the nearest release whose
// tools it serves: the image's etcd is the pinned one, its etcdctl and
// etcdutl that release's (a difference the report lists).
var etcdToolsVersion = map[string]string{"v3.6.12": "v3.6.8"}

// etcdVersion is the etcd release of a kubeadm etcd image tag: "3.6.8-0"
// → "v3.6.8" (kubeadm appends the image revision, cmd/kubeadm/app/
// constants DefaultEtcdVersion "3.7.0-0" at v1.37.0:330).
func etcdVersion(tag string) string {
	v, _, _ := strings.Cut(strings.TrimPrefix(tag, "v"), "-")
	return "v" + v
}

// coreDNSProgram builds coredns (its Makefile at v1.14.6:10-25:
// CGO_ENABLED=0, -ldflags "-s -w -X …GitCommit=…"; the commit is unknown
// in a module zip and left empty).
func coreDNSProgram(version string) gobuild.Program {
	return gobuild.Program{
		Name:     "coredns-" + version,
		Module:   "github.com/coredns/coredns",
		Version:  version,
		Packages: []string{"github.com/coredns/coredns"},
		LDFlags:  "-s -w",
	}
}

// crictlVersion is the cri-tools release kind v0.33.0's base image builds
// (images/base/Dockerfile:160 CRICTL_VERSION="v1.36.0").
const crictlVersion = "v1.36.0"

// crictlProgram builds crictl (cri-tools Makefile at v1.36.0:37-40:
// CGO_ENABLED=0, -X sigs.k8s.io/cri-tools/pkg/version.Version, which
// `git describe` gives without the leading v).
func crictlProgram() gobuild.Program {
	return gobuild.Program{
		Name:     "crictl-" + crictlVersion,
		Module:   "sigs.k8s.io/cri-tools",
		Version:  crictlVersion,
		Packages: []string{"sigs.k8s.io/cri-tools/cmd/crictl"},
		LDFlags:  "-X sigs.k8s.io/cri-tools/pkg/version.Version=" + strings.TrimPrefix(crictlVersion, "v"),
	}
}

// konnectivityProgram builds the konnectivity server and agent as their
// Dockerfiles do (apiserver-network-proxy v0.36.0 artifacts/images/
// server-build.Dockerfile: CGO_ENABLED=0 go build … -o proxy-server
// sigs.k8s.io/apiserver-network-proxy/cmd/server; agent-build likewise).
func konnectivityProgram(version string) gobuild.Program {
	return gobuild.Program{
		Name:     "konnectivity-" + version,
		Module:   "sigs.k8s.io/apiserver-network-proxy",
		Version:  version,
		Packages: []string{"sigs.k8s.io/apiserver-network-proxy/cmd/server", "sigs.k8s.io/apiserver-network-proxy/cmd/agent"},
		Rename:   map[string]string{"server": "proxy-server", "agent": "proxy-agent"},
	}
}

// localPathVersion is the local-path-provisioner the rehearsal builds.
// kind v0.33.0's image is v0.0.34 (images/local-path-provisioner/Makefile
// at 69b56db7:14 VERSION=v0.0.34), which the module proxy here does not
// serve (403 "not available"); v0.0.30 is the newest
// it serves, so the rehearsal lists the substitution as a difference.
const localPathVersion = "v0.0.30"

// localPathProgram builds it as its scripts/build does (CGO_ENABLED=0,
// -X main.VERSION, -extldflags -static -s -w).
func localPathProgram() gobuild.Program {
	return gobuild.Program{
		Name:     "local-path-provisioner-" + localPathVersion,
		Module:   "github.com/rancher/local-path-provisioner",
		Version:  localPathVersion,
		Packages: []string{"github.com/rancher/local-path-provisioner"},
		LDFlags:  "-X main.VERSION=" + localPathVersion + " -extldflags -static -s -w",
	}
}

// kindnetdCommit is the kind commit kind v0.33.0's kindnetd tag names
// (pkg/build/nodeimage/const_cni.go:23 kindnetd:v20260820-69b56db7).
const kindnetdCommit = "69b56db75a6e82dece4cdc980655d79b2b73eb77"

// kubeNetworkPoliciesCommit is the sigs.k8s.io/kube-network-policies
// commit kindnetd's go.mod requires at KindnetdCommit
// (v1.0.1-0.20260528073847-f67f0fb35e2b, images/kindnetd/go.mod:13),
// which the module proxy here does not serve either (403).
const kubeNetworkPoliciesCommit = "f67f0fb35e2b8288782bc1f22988648580dda7f8"

// kindnetdProgram builds kindnetd from kind's images/kindnetd module at
// that commit, extracted from a git snapshot of kubernetes-sigs/kind into
// tree: the module proxy does not serve sigs.k8s.io/kind/images/kindnetd
// at that commit (403). As its Dockerfile does:
// CGO_ENABLED=0 go build ./cmd/kindnetd.
func kindnetdProgram(tree string) gobuild.Program {
	return gobuild.Program{
		Name:     "kindnetd-" + kindnetdCommit[:8],
		Module:   "sigs.k8s.io/kind/images/kindnetd",
		Version:  kindnetdCommit,
		Packages: []string{"./cmd/kindnetd"},
		Tree:     tree,
		TreeKey:  kindnetdCommit + " " + kubeNetworkPoliciesCommit,
	}
}
