// Package testenv runs the lab's topology from real Kubernetes components as
// local processes on loopback, without Docker or images: one shared embedded
// etcd (like Kamaji's shared datastore, one key prefix per tenant) and, per
// tenant, kube-apiserver, kube-scheduler, kube-controller-manager, a
// konnectivity server and agent, KWOK keeping the workers' Node objects Ready,
// gpu-lab's GPU registrar and bind finalizer from ci/gpus/deviceplugin in place
// of HAMi's device plugin (which needs a kubelet; the real lab runs it), and a
// HAMi scheduler process: by default the HAMi protocol test double
// (ci/testenv/hamidouble, run as `labctl internal hami-double` with HAMi's command
// line), or HAMi's real scheduler binary (Options.HAMiBinary, HAMiImage).
//
// The Kubernetes binaries are built from the nested module ci/testenv/k8sbin
// (its own go.mod, so the root module never depends on k8s.io/kubernetes)
// into a cache directory the first time they are needed, by package
// ci/testenv/bincache; see EnsureBinaries.
//
// The tenant API server calls the double's mutating webhook through the
// tenant's konnectivity tunnel, as in the Kamaji lab: the webhook is
// registered by Service reference (an ExternalName Service naming the
// webhook's relay on 127.0.0.2, which forwards to HAMi's --http_bind), and
// the API server's egress selector sends `cluster` traffic over the
// konnectivity server's socket; the agent dials the relay. Everything stays on loopback; see Env.Tunnel for
// the counters that show which path each call took.
package testenv

import (
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

// Backend describes what the environment runs on; it is written into the
// state dir and shown in reports, naming every difference from the real lab.
// This is the line with the protocol double; Env.Backend names the HAMi
// scheduler a given environment runs.
var Backend = backendLine(hamiBackend{double: true, name: DoubleName})

// backendLine describes an environment running h as HAMi's scheduler, naming
// the differences from the real lab that apply to it.
func backendLine(h hamiBackend) string {
	hami := "HAMi replaced by a protocol test double"
	if !h.double {
		hami = h.name
	}
	return "local test environment: kube-apiserver/kube-scheduler/kube-controller-manager " +
		KubernetesVersion + ", etcd, konnectivity, KWOK; " + hami + "; " +
		"differs from the real lab in: " + differencesLine(h.double)
}

// KubernetesVersion is the version of the Kubernetes components the
// environment runs: the version bincache builds.
const KubernetesVersion = bincache.KubernetesVersion

// DoubleNotice is what every runner of the environment prints, so the double
// is never taken for HAMi.
const DoubleNotice = "HAMi is replaced by a protocol test double (not HAMi)"

// HAMiOfBackend is what a backend line says about HAMi: DoubleNotice for
// the protocol double, else the real scheduler's name ("HAMi scheduler …").
func HAMiOfBackend(line string) string {
	if parts := strings.Split(line, "; "); len(parts) >= 3 && strings.HasPrefix(parts[1], "HAMi scheduler") {
		return parts[1]
	}
	return DoubleNotice
}
