// Package kube owns the two things every stage does with Kubernetes
// objects: apply them (server-side apply through the dynamic client, after
// decoding a manifest stream or a typed object) and judge whether one is
// ready (Deployment, StatefulSet, DaemonSet, Node, webhook configuration,
// Kamaji TenantControlPlane), each judgement with the condition that says
// what is missing.
//
// It knows nothing of the lab: ci/stages calls it and waits on its
// predicates with its own timeouts. It imports only Kubernetes libraries.
package kube
