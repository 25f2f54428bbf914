// Package kubeconfig owns how a client reaches and trusts a cluster: the
// server a kubeconfig points at (Server, RewriteServer, for a Docker daemon
// whose published ports labctl reaches at another address than the one
// kind or Kamaji wrote), the CA it trusts (CA) and, for a kubelet that
// joins, kubeadm's credentials: a bootstrap token and its Secret
// (NewBootstrapToken, BootstrapTokenSecret) and the CA's discovery hash
// (CACertHash).
//
// It knows nothing of the lab; it imports only Kubernetes libraries.
package kubeconfig
