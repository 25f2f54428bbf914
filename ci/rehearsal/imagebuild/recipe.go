package imagebuild

import (
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/images"
)

// Kind is how an image is built.
type Kind string

const (
	KindNode         Kind = "kind node"         // kindest/node:<k8s version>
	KindServer       Kind = "kubernetes server" // registry.k8s.io/kube-*:<k8s version>
	KindPause        Kind = "pause"             // registry.k8s.io/pause
	KindEtcd         Kind = "etcd"              // registry.k8s.io/etcd:<kubeadm tag>
	KindQuayEtcd     Kind = "etcd (quay)"       // quay.io/coreos/etcd:<version>
	KindCoreDNS      Kind = "coredns"           // registry.k8s.io/coredns/coredns
	KindKonnectivity Kind = "konnectivity"      // registry.k8s.io/kas-network-proxy/proxy-*
	KindKindnetd     Kind = "kindnetd"          // docker.io/kindest/kindnetd
	KindLocalPath    Kind = "local-path"        // docker.io/kindest/local-path-provisioner
	KindLocalHelper  Kind = "local-path helper" // docker.io/kindest/local-path-helper
	KindKubectl      Kind = "kubectl"           // clastix/kubectl:<major.minor>
	KindUnsupported  Kind = "not built"         // Why says why
	KindLabctl       Kind = "built by labctl"   // the finalizer image: labctl makes it
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
// module proxy and Debian's packages, and why (checked 2026-12-02).
var notBuilt = map[string]string{
	"quay.io/jetstack/cert-manager-":            "cert-manager v1.18.3's commands are separate modules (cmd/controller, cmd/webhook, …) whose go.mod replace the root module by a relative path; no recipe yet",
	"docker.io/clastix/kamaji:":                 "github.com/clastix/kamaji at 26.8.2-edge is not served by the module proxy here (403 \"not available\"); build it from a git snapshot, or put the image into the bundle directory by other means (its index.json entry is kept)",
	"docker.io/projecthami/hami:":               "github.com/Project-HAMi/HAMi v2.10.0 is not served by the module proxy here (403), and the image also carries HAMi-core's C library (libvgpu.so); put it into the bundle directory by other means (its index.json entry is kept)",
	"docker.io/projecthami/mock-device-plugin:": "github.com/Project-HAMi/mock-device-plugin v1.0.1 is not served by the module proxy here (403); put it into the bundle directory by other means (its index.json entry is kept)",
	"docker.io/liangjw/kube-webhook-certgen:":   "no recipe yet (a fork of jet/kube-webhook-certgen; its module is not pinned by the chart); put it into the bundle directory by other means (its index.json entry is kept)",
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
