// Package suite is gpu-lab's conformance suite: the seed lab's eight checks
// and more (each case declared once in its scenario's cases_*.go, gathered
// in order in cases.go; ci/suite/README.md's table is generated from them),
// run concurrently against any platform given as one rest.Config per tenant
// plus the lab spec that describes its hardware.
//
// It talks to tenants only through client-go, so the same cases run against
// the Dagger lab, the local test environment and an existing platform with
// real GPUs. Cases that touch the same card form an ordered scenario; every
// scenario and every independent case is a task on a conc pool. Reasons are
// read from kube-scheduler's verdict (PodScheduled=False / FailedScheduling),
// never from HAMi's own events, and "stays Pending" means the scheduler said
// so, not that a sleep elapsed.
//
// The package is silent: it logs through the configured slog.Logger and
// returns a results.Run; the CLI prints and ci/report writes reports.
package suite
