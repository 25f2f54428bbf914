package imagebuild

import (
	"slices"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/images"
)

// kind is how an image is built.
type kind string

const (
	kindNode         kind = "kind node"          // kindest/node:<k8s version>
	kindServer       kind = "kubernetes server"  // registry.k8s.io/kube-*:<k8s version>
	kindPause        kind = "pause"              // registry.k8s.io/pause
	kindEtcd         kind = "etcd"               // registry.k8s.io/etcd:<kubeadm tag>
	kindQuayEtcd     kind = "etcd (quay)"        // quay.io/coreos/etcd:<version>
	kindCoreDNS      kind = "coredns"            // registry.k8s.io/coredns/coredns
	kindKonnectivity kind = "konnectivity"       // registry.k8s.io/kas-network-proxy/proxy-*
	kindKindnetd     kind = "kindnetd"           // docker.io/kindest/kindnetd
	kindLocalPath    kind = "local-path"         // docker.io/kindest/local-path-provisioner
	kindLocalHelper  kind = "local-path helper"  // docker.io/kindest/local-path-helper
	kindKubectl      kind = "kubectl"            // clastix/kubectl:<major.minor>
	kindKamaji       kind = "kamaji (git)"       // clastix/kamaji, from a git snapshot
	kindHAMi         kind = "hami (git)"         // projecthami/hami, from a git snapshot
	kindCertManager  kind = "cert-manager (git)" // quay.io/jetstack/cert-manager-<cmd>, from a git snapshot
	kindCertgen      kind = "certgen (git)"      // liangjw/kube-webhook-certgen: jet's, from a git snapshot
	kindNVMLMock     kind = "nvml-mock (git)"    // ghcr.io/nvidia/nvml-mock: the mock NVML library, from a git snapshot
	kindUnsupported  kind = "not built"          // Why says why
)

// recipe is what builds one reference.
type recipe struct {
	Ref  string
	Kind kind
	// Name is the component (the binary of a server image, proxy-server
	// or proxy-agent).
	Name string
	// Version is the version to build (Kubernetes, etcd, CoreDNS, …).
	Version string
	// Why says why an image is not built.
	Why string
}

// notBuilt are the lab's images the rehearsal cannot build from the
// module proxy, Debian's packages and the git snapshots it is given, and
// why. A snapshot-built image at another version than
// the pinned one lands here too: the reason names the pin.
var notBuilt = map[string]string{
	"quay.io/jetstack/cert-manager-": "the rehearsal builds cert-manager's controller, webhook, cainjector and startupapicheck at " +
		certManagerSnapshot.Tag + " only, from git (programs_snapshot.go CertManagerSnapshot)",
	"docker.io/clastix/kamaji:": "the rehearsal builds kamaji at " + kamajiSnapshot.Tag +
		" only, from git (programs_snapshot.go KamajiSnapshot)",
	"docker.io/projecthami/hami:": "the rehearsal builds HAMi at " + hamiSnapshot.Tag + " only, from git (programs_snapshot.go HAMiSnapshot)",
	"docker.io/projecthami/mock-device-plugin:": "github.com/Project-HAMi/mock-device-plugin v1.0.1 is not served by the module proxy here " +
		"(403); put it into the bundle directory by other means (its index.json entry is kept)",
	"docker.io/liangjw/kube-webhook-certgen:": "the rehearsal builds a stand-in for v1.1.1 only (ingress-nginx's kube-webhook-certgen, " +
		"programs_snapshot.go CertgenProgram)",
}

// recipeFor decides how ref (as `labctl images` lists it) is built.
func recipeFor(ref string) recipe {
	n := images.Normalize(ref)
	name, _, _ := strings.Cut(n, "@")
	repo, tag := name, ""
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		repo, tag = name[:i], name[i+1:]
	}
	r := recipe{Ref: ref, Version: tag}
	switch {
	case repo == "docker.io/kindest/node":
		r.Kind = kindNode
	case repo == "registry.k8s.io/kube-apiserver", repo == "registry.k8s.io/kube-controller-manager",
		repo == "registry.k8s.io/kube-scheduler", repo == "registry.k8s.io/kube-proxy":
		r.Kind, r.Name = kindServer, strings.TrimPrefix(repo, "registry.k8s.io/")
	case repo == "registry.k8s.io/pause":
		r.Kind = kindPause
	case repo == "registry.k8s.io/etcd":
		r.Kind = kindEtcd
	case repo == "quay.io/coreos/etcd":
		r.Kind = kindQuayEtcd
	case repo == "registry.k8s.io/coredns/coredns":
		r.Kind = kindCoreDNS
	case repo == "registry.k8s.io/kas-network-proxy/proxy-server", repo == "registry.k8s.io/kas-network-proxy/proxy-agent":
		r.Kind, r.Name = kindKonnectivity, strings.TrimPrefix(repo, "registry.k8s.io/kas-network-proxy/proxy-")
	case repo == "docker.io/kindest/kindnetd":
		r.Kind = kindKindnetd
	case repo == "docker.io/kindest/local-path-provisioner":
		r.Kind = kindLocalPath
	case repo == "docker.io/kindest/local-path-helper":
		r.Kind = kindLocalHelper
	case repo == "docker.io/clastix/kubectl":
		r.Kind = kindKubectl
	case repo == "docker.io/clastix/kamaji" && tag == kamajiSnapshot.Tag:
		r.Kind = kindKamaji
	case repo == "docker.io/projecthami/hami" && tag == hamiSnapshot.Tag:
		r.Kind = kindHAMi
	case strings.HasPrefix(repo, "quay.io/jetstack/cert-manager-") && tag == certManagerSnapshot.Tag &&
		slices.Contains(certManagerCommands, strings.TrimPrefix(repo, "quay.io/jetstack/cert-manager-")):
		r.Kind, r.Name = kindCertManager, strings.TrimPrefix(repo, "quay.io/jetstack/cert-manager-")
	case repo == "docker.io/liangjw/kube-webhook-certgen" && tag == certgenTag:
		r.Kind = kindCertgen
	case repo == "ghcr.io/nvidia/nvml-mock" && tag == nvmlMockTag:
		r.Kind = kindNVMLMock
	default:
		r.Kind, r.Why = kindUnsupported, "no recipe for "+repo
		for prefix, why := range notBuilt {
			if strings.HasPrefix(name, prefix) {
				r.Why = why
			}
		}
	}
	return r
}
