// Package kubeadmcheck holds the tests that hand what ci/stages renders for
// kubeadm to the real kubeadm at the pinned Kubernetes version (built by
// ci/testenv from ci/testenv/k8sbin). They live apart from ci/stages so its
// own tests never wait for, or depend on, the Kubernetes binary build.
package kubeadmcheck
