// Package testenv runs the lab's topology from real Kubernetes components as
// local processes on loopback, without Docker or images: one shared embedded
// etcd (like Kamaji's shared datastore, one key prefix per tenant) and, per
// tenant, kube-apiserver, kube-scheduler, kube-controller-manager, a
// konnectivity server and agent, KWOK keeping the workers' Node objects Ready,
// the product GPU registrar and bind finalizer from ci/gpus, and a HAMi
// protocol test double (ci/testenv/hamidouble) in place of HAMi, whose module
// cannot be downloaded.
//
// The Kubernetes binaries are built from the nested module ci/testenv/k8sbin
// (its own go.mod, so the root module never depends on k8s.io/kubernetes)
// into a cache directory the first time they are needed; see EnsureBinaries.
//
// The tenant API server calls the double's mutating webhook through the
// tenant's konnectivity tunnel, as in the Kamaji lab: the webhook is
// registered by Service reference (an ExternalName Service naming the
// double's webhook listener on 127.0.0.2), and the API server's egress
// selector sends `cluster` traffic over the konnectivity server's socket; the
// agent dials the double. Everything stays on loopback; see Env.Tunnel for
// the counters that show which path each call took.
package testenv

// Backend describes what the environment runs on; it is written into the
// state dir and shown in reports, naming every Difference from the real lab.
var Backend = "local test environment: kube-apiserver/kube-scheduler/kube-controller-manager " +
	KubernetesVersion + ", etcd, konnectivity, KWOK; HAMi replaced by a protocol test double; " +
	"differs from the real lab in: " + differencesLine()

// KubernetesVersion is the version the nested module builds: the nearest to
// the lab's tenant version (v1.36.4) that k8s.io/kubernetes, KWOK v0.8.0 and
// apiserver-network-proxy v0.36.0 build at together.
const KubernetesVersion = "v1.36.3"

// DoubleNotice is what every runner of the environment prints, so the double
// is never taken for HAMi.
const DoubleNotice = "HAMi is replaced by a protocol test double (not HAMi)"
