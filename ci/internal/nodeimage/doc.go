// Package nodeimage owns how an image reaches a kind node's containerd
// without a registry: `docker save` on the daemon piped into `ctr images
// import` in the node, for the node's platform and the snapshotter its CRI
// uses (Load, ContainerdImportCommand, ContainerdSnapshotter; containerd.go
// says why each flag).
//
// It knows nothing of stages or of the lab; the daemon is an interface
// (Docker) that ci/stages' Docker edge satisfies.
package nodeimage
