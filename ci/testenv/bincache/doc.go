// Package bincache builds the binaries the tests run, once per content of
// their sources, into a cache directory shared by every process on the
// machine: the Kubernetes components (EnsureBinaries, from the nested
// module ci/testenv/k8sbin, which has its own go.mod so the root module
// never depends on k8s.io/kubernetes) and labctl for the HAMi protocol
// double (EnsureDoubleBinary). A build runs under the entry's lock file, so
// parallel test binaries wait for one build, and logs its progress, since
// a first build takes minutes.
//
// It imports only the standard library (imports_test.go holds it to that):
// a test that needs only kubeadm, such as ci/stages/kubeadmcheck, links
// none of ci/testenv's client-go and components with it.
package bincache

// KubernetesVersion is the version the nested module builds: the nearest to
// the lab's tenant version (v1.36.4) that k8s.io/kubernetes, KWOK v0.8.0 and
// apiserver-network-proxy v0.36.0 build at together.
const KubernetesVersion = "v1.36.3"
