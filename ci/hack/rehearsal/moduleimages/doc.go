// Package moduleimages builds the three images the Dagger module pulls —
// docker:29-cli, docker:29-dind and golang:1.26 (.dagger/labcmd/layout.go)
// — from pinned sources on a machine with no registry: Docker v29.7.2's
// daemon and CLI from vendored git snapshots of moby/moby and docker/cli,
// containerd and runc at the versions moby pins through the Go module
// proxy, the machine's Go toolchain, and Debian's packages for the
// userland. Built pieces are cached like ci/hack/rehearsal/imagebuild's (same
// cache root, gobuild, rootfs and imagespec), each image is kept as a
// docker save archive, and Differences lists how each differs from the
// published image.
package moduleimages
