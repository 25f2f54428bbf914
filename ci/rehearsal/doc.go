// Package rehearsal is the maintainers' rehearsal tier: the real lab
// (`labctl up --images`, `labctl test`) run on this machine's own Docker
// capabilities, with every way this machine differs from a user's listed in
// one place (Adaptations) for the rehearsal's report.
//
// Subpackages: hostdaemon starts and stops the private Docker daemon in its
// own network namespace; capfilter is the OCI runtime wrapper's logic (its
// entry point is capfilter/runc-capfilter); nodeadapt is what a kind node
// image needs on this machine; imagebuild builds the lab's images.
package rehearsal
