// Package kubeadmcheck holds the tests that hand what ci/render renders for
// kubeadm (the worker's JoinConfiguration, which ci/stages writes into each
// worker) to the real kubeadm at the pinned Kubernetes version (built by
// ci/testenv/bincache from ci/testenv/k8sbin). They live apart from
// ci/render and ci/stages so their own tests never wait for, or depend on,
// the Kubernetes binary build.
package kubeadmcheck
