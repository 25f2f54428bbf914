// Package assert holds the suite's domain assertions as pure functions: they
// read what kube-scheduler and HAMi wrote (a PodScheduled message, device
// strings, a node's register annotation) and return an error that says, in
// words a platform engineer reads in a report, what was expected and what
// was found. No Kubernetes client is involved, so each rule is table-tested.
package assert
