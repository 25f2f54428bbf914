//go:build tools

// Package k8sbin pins the Kubernetes components the local test environment
// runs. It is its own module so the root module never depends on
// k8s.io/kubernetes; ci/testenv builds these commands into a cache directory.
package k8sbin

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	// kubeadm judges the join configuration the lab renders (ci/stages tests).
	_ "k8s.io/kubernetes/cmd/kubeadm"
	_ "sigs.k8s.io/apiserver-network-proxy/cmd/agent"
	_ "sigs.k8s.io/apiserver-network-proxy/cmd/server"
)
