package hostdaemon

// RehearsalEnv opts in to the tests that start a private daemon (=1): they
// need root, ip, nsenter, dockerd, containerd and runc, and are skipped
// otherwise, as in CI.
const RehearsalEnv = "GPU_LAB_REHEARSAL"
