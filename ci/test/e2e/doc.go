// Package e2e runs the conformance suite end to end against the local test
// environment (ci/testenv: real kube-apiserver, kube-scheduler,
// kube-controller-manager, etcd, konnectivity and KWOK, with HAMi replaced
// by a protocol test double). It holds tests only: the whole suite must
// pass with no case skipped, every case must fail when the behaviour it
// checks is broken, and a benchmark compares concurrent and serial runs.
//
// It is the only package that joins ci/suite and ci/testenv; the suite
// itself never imports the environment.
package e2e
