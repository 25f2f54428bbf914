package imagebuild

import (
	"fmt"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/nodeimage"
)

// differences lists every way the rehearsal's images differ from the
// published ones the lab pins, each with its reason: the report prints
// them, so no adaptation is silent.
func differences(p Plan) []string {
	var out []string
	for _, n := range p.Nodes {
		if local := localTag(n.Ref); local != n.Ref {
			out = append(out, fmt.Sprintf("%s is built locally as %s: a local build cannot have the published digest. The bundle's entry keeps "+
				"the pinned reference and holds the local image; `labctl up --images` names a digest-pinned image by its image ID (ci/images "+
				"Loaded), so the lab file needs no change", n.Ref, local))
		}
	}
	out = append(out, snapshotDifferences(p)...)
	out = append(out, kubectlDifferences(p)...)
	return append(out,
		"kubelet is linked statically (CGO_ENABLED=0); upstream links it dynamically (hack/lib/golang.sh KUBE_STATIC_BINARIES lacks it): a "+
			"second, cgo build of its dependency graph would double the longest build",
		"Kubernetes binaries carry no gitCommit/gitTreeState (a module zip has no commit; hack/lib/version.sh:167 stamps them only when known) "+
			"and buildDate is the release's publication time on the module proxy",
		"node images: Debian bookworm's containerd 1.6.20, runc 1.1.5 and CNI plugins 1.1.1 instead of kind "+nodeimage.KindModuleVersion+
			"'s containerd v2.3.4, runc v1.4.3 and CNI plugins v1.9.1 (images/base/Dockerfile:127,145,173), and no "+
			"containerd-fuse-overlayfs-grpc; bookworm instead of trixie",
		"base images: a Debian bookworm minbase with iptables/nftables/conntrack stands in for distroless-iptables; a scratch image with users "+
			"and CA certificates for distroless static and go-runner",
		"docker.io/kindest/local-path-provisioner is "+localPathVersion+" (kind's is v0.0.34, which the module proxy here does not serve); "+
			"docker.io/kindest/local-path-helper is the iptables base (bash, coreutils) rather than a staged sh/rm/mkdir",
		"docker.io/kindest/kindnetd is built from kind's git history at "+kindnetdCommit[:8]+" with sigs.k8s.io/kube-network-policies at "+
			kubeNetworkPoliciesCommit[:12]+" from that repository's git history (the module proxy serves neither commit)",
		"quay.io/coreos/etcd:v3.6.12 carries etcdctl and etcdutl of v3.6.8 (the module proxy here does not serve their v3.6.12 modules; its "+
			"etcd is v3.6.12)",
		"etcd and CoreDNS carry no git commit stamp (not in a module zip); quay.io/coreos/etcd and clastix/kubectl stand-ins sit on the "+
			"iptables base (a shell for kamaji-etcd's jobs)",
		"pause is compiled from k8s.io/kubernetes's build/pause/linux/pause.c of the newest Kubernetes version in the lab, tagged with kind's "+
			"sandbox tag 3.10",
	)
}
