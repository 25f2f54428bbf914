// Package chartbuild makes the lab's three helm charts from their pinned
// upstream sources, for a rehearsal on a machine that reaches no chart
// repository: HAMi 2.10.0, Kamaji 0.0.0+latest with its kamaji-etcd
// resolved in, and cert-manager v1.18.3. Each chart's files are taken from
// a git directory at its pinned tag, the tag checked to name the pinned
// commit (imagebuild.PinFor) and the tree extracted as every snapshot is
// (imagebuild.ExtractSnapshot: the git directory's own config and
// attributes are never run; the gitsnap package doc lists what is still
// trusted) into a temporary directory; the upstream publish step is repeated — HAMi's
// charts/Makefile, the helm-gh-pages action Kamaji and kamaji-etcd publish
// with, cert-manager's make/manifests.mk — and helm v3.19.0, built once
// through the Go module proxy (imagebuild/gobuild) into the rehearsal
// cache, packages it under the name a bundle keeps it by
// (images.ChartArchiveName). `rehearse charts` runs it; `rehearse run --charts DIR` puts the archives into the bundle.
//
// Nothing upstream is kept in the repository: the recipes cite the
// upstream lines they repeat, and the archives live outside the tree.
package chartbuild
