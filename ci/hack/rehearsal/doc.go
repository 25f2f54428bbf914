// Package rehearsal is the maintainers' rehearsal tier: the real lab
// (`labctl up --images`, `labctl test`) run on this machine's own Docker
// capabilities, with every way this machine differs from a user's listed in
// one place (Adaptations) for the rehearsal's report.
//
// Subpackages: hostdaemon starts and stops the private Docker daemon in its
// own network namespace; capfilter is the OCI runtime wrapper's logic (its
// entry point is capfilter/runc-capfilter); nodeadapt is what a kind node
// image needs on this machine; imagebuild builds the lab's images and
// chartbuild its helm charts from pinned sources; run is `rehearse run`,
// the lab end to end on the private daemon. For the Dagger path: registry
// serves images to the engine inside the namespace, daggerbuild builds the
// dagger CLI and engine, moduleimages the images the module pulls, and
// daggerrun runs the README's `dagger call` commands against them;
// owndir removes a directory a tool made only when nothing else is in it;
// timeline reads the steps of labctl up from its log for the report's
// critical path of each stage.
package rehearsal
