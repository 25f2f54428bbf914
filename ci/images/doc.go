// Package images knows every image the lab runs — where it runs, which
// stage first needs it and where upstream its name comes from — and moves
// them as bundles: `labctl images save DIR` writes one archive per image
// with an index, `labctl up --images DIR` loads them into the lab's Docker
// daemon, and the stages import them into the kind nodes' containerd before
// they are needed.
//
// The list is derived from ci/lab's pinned versions and ci/render's output,
// never typed as a list; kamaji-etcd's images, which Kamaji's floating chart
// would pick by its subchart's defaults and the cluster's version, are
// pinned here and set at install (kamajietcd.go), and a chart archive's
// subchart is checked to read those values; a test holds every image a rendered manifest (and
// the recorded HAMi chart rendering) names to it. Layering: images sits on
// lab and render, below stages.
package images
