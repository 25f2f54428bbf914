// Package imagebuild builds every image of the lab from its pinned sources
// on a machine that reaches no image registry — Go programs in module mode
// through the Go module proxy, the OS userland from Debian's packages —
// keyed by component and version in a cache outside the repository
// (cache.Root), so a second run reuses everything; and writes them as a
// bundle `labctl up --images` consumes unchanged. Its sub-packages each own
// one thing: cache (the cache directory), gobuild (Go builds), k8srelease
// (the Kubernetes release binaries), rootfs (debootstrap), imagespec (one
// image: Dockerfile and docker build), components (the small images) and
// nodeimage (the kind node images).
//
// `rehearse images` is its command. The long builds run only there
// (or in a maintainer's own program): the tests build nothing.
package imagebuild
