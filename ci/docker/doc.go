// Package docker is gpu-lab's edge to a Docker daemon: create and inspect
// networks, run kind-style node containers, exec in them, move images, and
// remove what the lab created.
//
// It drives the docker CLI rather than the Docker Go SDK. kind's own docker
// provider shells out to the same CLI, so labctl needs it on PATH anyway;
// using it here keeps one way of reaching the daemon (DOCKER_HOST, contexts
// and TLS variables behave exactly as for kind) and keeps the root module free
// of the Docker SDK's dependency tree. Everything that decides something
// from the daemon's answers (which IPv4 subnet to use, which address a
// container has, the flags of a node container, how images are saved on
// its image store, what the host probe read) is a pure function with a
// table test on recorded output; the CLI calls are tested against the real
// daemon.
package docker
