// Package diagnostics owns the diagnostics bundle a failed bring-up
// leaves: the directory being written (Bundle: every piece it could not
// collect goes to errors.txt and the rest goes on), the management
// cluster's and each tenant's files, the pods and events tables, the logs
// of HAMi's and the mock NVML library's containers, and each worker's
// docker logs and kubelet journal.
//
// It knows nothing of stages and decides nothing about ownership: the
// caller names what may be read (ci/stages' Diagnose passes only what its
// state dir made). The clusters are client-go's interfaces, the daemon an
// interface (Docker) that ci/stages' Docker edge satisfies.
package diagnostics
