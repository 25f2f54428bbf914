// Package registry serves images to the Dagger engine and the module's
// Docker-in-Docker inside the rehearsal's network namespace, where no
// registry is reachable: a distribution/distribution v3 registry built
// through the Go module proxy runs as a process in the private daemon's
// namespace, listening on port 5000 (reachable from the daemon's containers
// at the docker0 gateway address, from the daemon itself at 127.0.0.1),
// with its storage under the daemon's directory. Push puts image archives
// (docker save's, or OCI layouts as Dagger and `labctl images save`
// write them) into it under the names a registry mirror is asked for, and
// Mirrors is the engine configuration that sends the engine there.
package registry
