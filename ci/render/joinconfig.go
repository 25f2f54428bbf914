package render

import (
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// A worker joins with a kubeadm JoinConfiguration file, as kind v0.33.0
// joins its own workers (sigs.k8s.io/kind@v0.33.0
// pkg/cluster/internal/create/actions/kubeadmjoin/join.go runs
// `kubeadm join --config /kind/kubeadm.conf`; the document is
// ConfigTemplateBetaV4 in pkg/cluster/internal/kubeadm/config.go): kubeadm
// join has no flag for the kubelet's --node-ip, only
// nodeRegistration.kubeletExtraArgs in a config file. Writing the file into
// the worker and running kubeadm is ci/stages' (JoinConfigPath, JoinCommand).
const (
	// kubeadmAPIVersion is the kubeadm config API kubeadm v1.36.3 reads
	// (cmd/kubeadm/app/apis/kubeadm/v1beta4, the only non-deprecated one).
	kubeadmAPIVersion = "kubeadm.k8s.io/v1beta4"
	// containerdSocket is the kindest/node CRI socket kind names as
	// nodeRegistration.criSocket.
	containerdSocket = "unix:///run/containerd/containerd.sock"
)

var (
	tokenRe = regexp.MustCompile(`^([a-z0-9]{6})\.([a-z0-9]{16})$`)
	hashRe  = regexp.MustCompile(`^sha256:[a-f0-9]{64}$`)
)

// JoinSpec is what a worker needs to join a tenant.
type JoinSpec struct {
	// Endpoint is the tenant API server as workers reach it: the management
	// node's IPv4 on the kind network and the tenant's NodePort.
	Endpoint string
	Token    string
	// CACertHash pins the tenant CA ("sha256:<hex>").
	CACertHash string
	NodeName   string
	// NodeIP is the worker's IPv4 on the lab network: the kubelet's
	// --node-ip, as kind sets it for its nodes.
	NodeIP string
}

// JoinSkipPhases are the kubeadm join phases a worker skips: preflight, as
// kind v0.33.0 does for its own nodes (pkg/cluster/internal/kubeadm/config.go
// sets JoinSkipPhases = ["preflight"], "Kind pre-pulls images and preflight
// may conflict with that"; pkg/cluster/internal/create/actions/kubeadmjoin/
// join.go passes --skip-phases=preflight itself to kubeadm < 1.23). A worker
// is a kindest/node container like kind's, and the checks it would trip are
// about the host, not the node: SystemVerification (the host's kernel
// config), Swap, FileContent--proc-sys-net-ipv4-ip_forward (the host's
// sysctl). kubeadm v1.36.3 names its file and port checks per path and port
// (FileAvailable--etc-kubernetes-pki-ca.crt, FileExisting-<binary>,
// Port-10250: cmd/kubeadm/app/preflight/checks.go), so an ignore list would
// have to follow kubeadm's internals; the old "FileExisting" matched nothing.
var JoinSkipPhases = []string{"preflight"}

// The JoinConfiguration fields the lab sets, named as in kubeadm v1.36.3
// cmd/kubeadm/app/apis/kubeadm/v1beta4/types.go (JoinConfiguration,
// Discovery, BootstrapTokenDiscovery, NodeRegistrationOptions, Arg). The
// root module does not depend on k8s.io/kubernetes, so these are the lab's
// own types; `kubeadm config validate` judges what they render in the tests.
type (
	joinConfiguration struct {
		APIVersion       string           `json:"apiVersion"`
		Kind             string           `json:"kind"`
		Discovery        joinDiscovery    `json:"discovery"`
		NodeRegistration nodeRegistration `json:"nodeRegistration"`
		SkipPhases       []string         `json:"skipPhases,omitempty"`
	}
	joinDiscovery struct {
		BootstrapToken bootstrapTokenDiscovery `json:"bootstrapToken"`
	}
	bootstrapTokenDiscovery struct {
		APIServerEndpoint string   `json:"apiServerEndpoint"`
		Token             string   `json:"token"`
		CACertHashes      []string `json:"caCertHashes"`
	}
	nodeRegistration struct {
		Name             string       `json:"name"`
		CRISocket        string       `json:"criSocket"`
		KubeletExtraArgs []kubeletArg `json:"kubeletExtraArgs,omitempty"`
	}
	kubeletArg struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
)

// JoinConfiguration is the worker's kubeadm JoinConfiguration (YAML): the
// bootstrap-token discovery pinned to the tenant CA, the node name, kind's
// CRI socket, the kubelet's --node-ip (the worker's IPv4 on the lab network,
// as kind passes each node's address) and the phases kind skips.
//
// kind also passes provider-id (kind://docker/<cluster>/<node>) and
// node-labels. The lab passes neither: a worker is no node of a kind
// cluster, so a kind:// provider ID would name a cluster that does not own
// it (and no cloud provider in the lab reads one), and workers carry no
// extra labels at registration.
func JoinConfiguration(s JoinSpec) ([]byte, error) {
	if _, _, err := net.SplitHostPort(s.Endpoint); err != nil || strings.Contains(s.Endpoint, "://") {
		return nil, fmt.Errorf("join endpoint %q: want host:port (no scheme)", s.Endpoint)
	}
	if !tokenRe.MatchString(s.Token) {
		return nil, fmt.Errorf("join token: want [a-z0-9]{6}.[a-z0-9]{16}")
	}
	if !hashRe.MatchString(s.CACertHash) {
		return nil, fmt.Errorf("join CA hash %q: want sha256:<64 hex digits>", s.CACertHash)
	}
	if s.NodeName == "" {
		return nil, fmt.Errorf("join: node name is empty")
	}
	if ip, err := netip.ParseAddr(s.NodeIP); err != nil || !ip.Is4() {
		return nil, fmt.Errorf("join node IP %q of %s: want the worker's IPv4 address on the lab network", s.NodeIP, s.NodeName)
	}
	return UncheckedJoinConfiguration(s)
}

// UncheckedJoinConfiguration renders as JoinConfiguration does, without
// checking s: the workers stage's plan shows placeholders where the real
// values (the token, the CA hash, the worker's address) are not known yet.
func UncheckedJoinConfiguration(s JoinSpec) ([]byte, error) {
	return yaml.Marshal(joinConfiguration{
		APIVersion: kubeadmAPIVersion,
		Kind:       "JoinConfiguration",
		Discovery: joinDiscovery{BootstrapToken: bootstrapTokenDiscovery{
			APIServerEndpoint: s.Endpoint, Token: s.Token, CACertHashes: []string{s.CACertHash},
		}},
		NodeRegistration: nodeRegistration{
			Name:      s.NodeName,
			CRISocket: containerdSocket,
			// "node-ip" is the kubelet flag (k8s v1.36.3
			// cmd/kubelet/app/options/options.go).
			KubeletExtraArgs: []kubeletArg{{Name: "node-ip", Value: s.NodeIP}},
		},
		SkipPhases: JoinSkipPhases,
	})
}
