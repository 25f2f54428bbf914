package imagebuild

import (
	"slices"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/images"
)

// Kind is how an image is built.
type Kind string

const (
	KindNode         Kind = "kind node"          // kindest/node:<k8s version>
	KindServer       Kind = "kubernetes server"  // registry.k8s.io/kube-*:<k8s version>
	KindPause        Kind = "pause"              // registry.k8s.io/pause
	KindEtcd         Kind = "etcd"               // registry.k8s.io/etcd:<kubeadm tag>
	KindQuayEtcd     Kind = "etcd (quay)"        // quay.io/coreos/etcd:<version>
	KindCoreDNS      Kind = "coredns"            // registry.k8s.io/coredns/coredns
	KindKonnectivity Kind = "konnectivity"       // registry.k8s.io/kas-network-proxy/proxy-*
	KindKindnetd     Kind = "kindnetd"           // docker.io/kindest/kindnetd
	KindLocalPath    Kind = "local-path"         // docker.io/kindest/local-path-provisioner
	KindLocalHelper  Kind = "local-path helper"  // docker.io/kindest/local-path-helper
	KindKubectl      Kind = "kubectl"            // clastix/kubectl:<major.minor>
	KindKamaji       Kind = "kamaji (git)"       // clastix/kamaji, from a git snapshot
	KindHAMi         Kind = "hami (git)"         // projecthami/hami, from a git snapshot
	KindCertManager  Kind = "cert-manager (git)" // quay.io/jetstack/cert-manager-<cmd>, from a git snapshot
	KindCertgen      Kind = "certgen (git)"      // liangjw/kube-webhook-certgen: jet's, from a git snapshot
	KindUnsupported  Kind = "not built"          // Why says why
	KindLabctl       Kind = "built by labctl"    // the finalizer image: labctl makes it
)

// Recipe is what builds one reference.
type Recipe struct {
	Ref  string
	Kind Kind
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
	"quay.io/jetstack/cert-manager-":            "the rehearsal builds cert-manager's controller, webhook, cainjector and startupapicheck at " + CertManagerSnapshot.Tag + " only, from git (programs_snapshot.go CertManagerSnapshot)",
	"docker.io/clastix/kamaji:":                 "the rehearsal builds kamaji at " + KamajiSnapshot.Tag + " only, from git (programs_snapshot.go KamajiSnapshot)",
	"docker.io/projecthami/hami:":               "the rehearsal builds HAMi at " + HAMiSnapshot.Tag + " only, from git (programs_snapshot.go HAMiSnapshot)",
	"docker.io/projecthami/mock-device-plugin:": "github.com/Project-HAMi/mock-device-plugin v1.0.1 is not served by the module proxy here (403); put it into the bundle directory by other means (its index.json entry is kept)",
	"docker.io/liangjw/kube-webhook-certgen:":   "the rehearsal builds a stand-in for v1.1.1 only (ingress-nginx's kube-webhook-certgen, programs_snapshot.go CertgenProgram)",
}

// RecipeFor decides how ref (as `labctl images` lists it) is built.
func RecipeFor(ref string) Recipe {
	n := images.Normalize(ref)
	name, _, _ := strings.Cut(n, "@")
	repo, tag := name, ""
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		repo, tag = name[:i], name[i+1:]
	}
	r := Recipe{Ref: ref, Version: tag}
	switch {
	case repo == "docker.io/kindest/node":
		r.Kind = KindNode
	case repo == "registry.k8s.io/kube-apiserver", repo == "registry.k8s.io/kube-controller-manager",
		repo == "registry.k8s.io/kube-scheduler", repo == "registry.k8s.io/kube-proxy":
		r.Kind, r.Name = KindServer, strings.TrimPrefix(repo, "registry.k8s.io/")
	case repo == "registry.k8s.io/pause":
		r.Kind = KindPause
	case repo == "registry.k8s.io/etcd":
		r.Kind = KindEtcd
	case repo == "quay.io/coreos/etcd":
		r.Kind = KindQuayEtcd
	case repo == "registry.k8s.io/coredns/coredns":
		r.Kind = KindCoreDNS
	case repo == "registry.k8s.io/kas-network-proxy/proxy-server", repo == "registry.k8s.io/kas-network-proxy/proxy-agent":
		r.Kind, r.Name = KindKonnectivity, strings.TrimPrefix(repo, "registry.k8s.io/kas-network-proxy/proxy-")
	case repo == "docker.io/kindest/kindnetd":
		r.Kind = KindKindnetd
	case repo == "docker.io/kindest/local-path-provisioner":
		r.Kind = KindLocalPath
	case repo == "docker.io/kindest/local-path-helper":
		r.Kind = KindLocalHelper
	case repo == "docker.io/clastix/kubectl":
		r.Kind = KindKubectl
	case repo == "docker.io/clastix/kamaji" && tag == KamajiSnapshot.Tag:
		r.Kind = KindKamaji
	case repo == "docker.io/projecthami/hami" && tag == HAMiSnapshot.Tag:
		r.Kind = KindHAMi
	case strings.HasPrefix(repo, "quay.io/jetstack/cert-manager-") && tag == CertManagerSnapshot.Tag &&
		slices.Contains(CertManagerCommands, strings.TrimPrefix(repo, "quay.io/jetstack/cert-manager-")):
		r.Kind, r.Name = KindCertManager, strings.TrimPrefix(repo, "quay.io/jetstack/cert-manager-")
	case repo == "docker.io/liangjw/kube-webhook-certgen" && tag == CertgenTag:
		r.Kind = KindCertgen
	case ref == images.FinalizerRef:
		r.Kind = KindLabctl
	default:
		r.Kind, r.Why = KindUnsupported, "no recipe for "+repo
		for prefix, why := range notBuilt {
			if strings.HasPrefix(name, prefix) {
				r.Why = why
			}
		}
	}
	return r
}
