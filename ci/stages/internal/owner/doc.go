// Package owner owns what a state dir created: the owner record in the
// state dir (its format, read and write), the labels that mark what labctl
// starts, and the decisions whether labctl may adopt, run commands in or
// delete the kind cluster and the worker containers that carry the lab's
// names.
//
// It knows nothing of stages or of the lab file; the daemon is an
// interface (Docker) that ci/stages' Docker edge satisfies.
//
// Ownership: labctl adopts, runs commands in, or deletes only what it
// created from this state directory. A name is not proof: `name: kind` is
// the user's default kind cluster, and two checkouts with the default lab
// name share every container name.
//
//   - Worker containers are started by labctl (`docker run`), so they carry
//     the state dir's owner ID as a Docker label (Label) next to the lab
//     and tenant labels.
//   - The kind cluster's node containers are created by kind, whose config
//     has no field for container labels: kind v0.33.0's docker provider puts
//     exactly two labels on a node container, io.x-k8s.kind.cluster=<name>
//     and io.x-k8s.kind.role=<role> (sigs.k8s.io/kind@v0.33.0
//     pkg/cluster/internal/providers/docker/provision.go:140 and :220,
//     constants.go:21,25), and a Docker label cannot be added to an existing
//     container. So the state dir records the IDs Docker gave the cluster's
//     node containers right after kind created them, and a cluster is this
//     state dir's only when every node container kind lists for the name
//     (the same `docker ps -a --filter label=io.x-k8s.kind.cluster=<name>`
//     as kind's ListNodes, provider.go:113-123) has a recorded ID. Container
//     IDs are made by the daemon and never reused, so a foreign cluster of
//     the same name cannot match. The owner ID also goes on the cluster's
//     Nodes as a Kubernetes label (kind's node `labels`, v1alpha4/types.go:
//     110-111, passed to the kubelet's --node-labels:
//     pkg/cluster/internal/create/actions/config/config.go:213,
//     pkg/cluster/internal/kubeadm/config.go:555-556), so a person can see
//     from inside the cluster which state dir made it; the decision does not
//     depend on it.
package owner
