// Package preflight owns the judgment of the Docker daemon's host before
// any stage starts: the facts read there (HostFacts), the free disk the lab
// needs (DiskNeed), every reason the host cannot run the lab, each with
// what to change (HostProblems), and a node image an image bundle lacks
// (BundleHolds). Hosts the lab cannot run on are named before any stage
// starts, each with what to change; otherwise kind or a join would time out
// without saying why.
//
// It knows nothing of stages; the daemon is an interface (Images) that
// ci/stages' Docker edge satisfies.
package preflight
