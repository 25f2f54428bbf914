// Package citations keeps the repository's citations honest.
//
// Facts the lab rests on live in the repository: upstream facts are cited
// as "<project> <tag> <file>:<line>", measured behaviour in documents beside
// the code (ci/testenv/hamidouble/HAMI-FACTS.md, ci/render/UPSTREAM-FACTS.md)
// cited as "FILE.md §N" or "FILE.md#anchor". Earlier sessions cited research
// notes kept outside the repository; a reader who clones the repository
// cannot follow such a citation. The package's test walks ci/, .dagger/,
// manifests/ and .ci and fails on any citation of those notes and on any
// document citation whose file or heading does not exist.
package citations
