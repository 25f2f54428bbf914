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
//
// # What loading a bundle checks, and what it trusts
//
// Checked, before anything is loaded: index.json is a regular file of at
// most maxIndexFile bytes (bundle.go); each archive's entries are ones
// every loader reads as the check does — no second entry of a name, no
// absolute or ".." name, no oversized or non-regular metadata file, none
// below a link (archive_entries.go); the archive's manifests and config
// match their digests, and it is the image its index entry records
// (archive.go, bundle_pin.go); a digest-pinned reference is tied to its
// pin. After the load: the image the daemon loaded is one the check
// verified (its config or one of its manifests), else it is refused and
// never named by the entry's reference — so an archive altered between
// the check and the load, or read otherwise by the daemon, cannot pass.
//
// Trusted, and so the bundle directory must be as trustworthy as the
// images themselves:
//
//   - the daemon: its load output and `docker image inspect` answers name
//     what it loaded;
//   - the daemon checks the layers, which the check passes over unread:
//     the classic store checks each layer against the config's diff_ids
//     (moby v20.10.24 image/tarexport/load.go:103-121) and the ID is the
//     config's digest (:124); the containerd store keeps every file by the
//     digest of its own bytes (containerd v2.3.3, as moby docker-v29.7.2
//     vendors it, core/images/archive/importer.go:117-125,248-256), so a
//     manifest the check verified names exactly its layers;
//   - the index, for a reference not pinned by digest: which archive is
//     that reference's image is the index writer's word (the entry's
//     recorded ID, config or manifest is checked against the archive, but
//     the writer chose them);
//   - the index, for a digest-pinned reference neither the daemon nor the
//     archive ties to its pin: the recorded ID, config or manifest is the
//     writer's word that they resolved the pin (bundle_pin.go);
//   - a file the check cannot read as an image archive at all (no tar, no
//     manifest.json or index.json): docker load judges it, and only the
//     image ID the index records, if any, is compared (a digest-pinned one
//     without a recorded image is refused unless AllowUnverifiedPinsFlag);
//   - the JSON the check and the loaders parse is read by Go's
//     encoding/json on both sides (duplicate keys: the last wins for all).
//
// Not supported, so refused after the load: a docker save archive without
// index.json (Docker 20.10's) loaded into a containerd image store, which
// makes its own manifest for it (importer.go:175-190), an ID the archive
// does not hold.
package images
