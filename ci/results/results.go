// Package results is the data model of one suite run, shared by the suite
// (which fills it) and the report writers (which only read it). It is the
// schema of results.json.
package results

import "time"

// SchemaVersion of results.json; bump on incompatible changes.
const SchemaVersion = "gpu-lab.results/v1"

// Status of a case.
type Status string

const (
	Passed  Status = "passed"
	Failed  Status = "failed"
	Skipped Status = "skipped"
)

// Run is one execution of the suite.
type Run struct {
	Schema string `json:"schema"`
	// Lab is the lab name; Backend says what the suite ran against, e.g.
	// "kind+kamaji+hami", "testenv (HAMi replaced by a protocol test double)"
	// or "existing platform".
	Lab     string    `json:"lab"`
	Backend string    `json:"backend"`
	Started time.Time `json:"started"`
	// Duration is the wall time of the whole run.
	Duration Duration `json:"duration"`
	// Parallel is the worker count of the pool (1 for --serial).
	Parallel int `json:"parallel"`
	// Interrupted is set when the run was cancelled (Ctrl-C, timeout).
	Interrupted bool   `json:"interrupted,omitempty"`
	Cases       []Case `json:"cases"`
	// Tenants are the GPU samples, grouped by tenant in the lab's order,
	// each tenant's samples in time order.
	Tenants []TenantState `json:"tenants,omitempty"`
}

// Case is the outcome of one test case.
type Case struct {
	ID    string `json:"id"` // "TC-01"
	Title string `json:"title"`
	// Tenants the case used; Scenario groups cases that share a card and run
	// in order ("" for independent cases).
	Tenants  []string `json:"tenants,omitempty"`
	Scenario string   `json:"scenario,omitempty"`
	// Core marks the seed lab's eight checks: reports call out a core
	// case that was skipped.
	Core     bool      `json:"core,omitempty"`
	Status   Status    `json:"status"`
	Started  time.Time `json:"started"`
	Duration Duration  `json:"duration"`
	// Message is the failure or skip reason, one line.
	Message string `json:"message,omitempty"`
	// Details are longer diagnostics (system-out in JUnit).
	Details string `json:"details,omitempty"`
	// Steps record what the case asserted, in order, for readers of reports.
	Steps []Step `json:"steps,omitempty"`
	// Metrics are numbers the case measured, e.g. bind latencies in seconds.
	Metrics map[string]float64 `json:"metrics,omitempty"`
	// Diagnostics are files collected when the case failed (events, node
	// annotations, pod YAML), and files a case keeps as evidence whether it
	// passed or not (TC-18's container-env.log), by file name; reports
	// write them under diagnostics/<ID>/.
	Diagnostics map[string]string `json:"diagnostics,omitempty"`
}

// Step is one assertion or action of a case.
type Step struct {
	At      time.Time `json:"at"`
	Message string    `json:"message"`
}

// TenantState is a tenant's GPU picture at the end of the run (or at the
// moment the suite sampled it), for the HTML report's card pictures.
type TenantState struct {
	Name string `json:"name"`
	// Moment says when the state was sampled ("TC-05: ...", "end of run");
	// a run may hold several samples of one tenant.
	Moment string    `json:"moment,omitempty"`
	At     time.Time `json:"at,omitempty"`
	Nodes  []Node    `json:"nodes"`
	// Deleting names the pods ("namespace/pod") that held a slice but were
	// being deleted (the pod, or its namespace) when sampled: they are left
	// out of the cards, and listed here so nothing vanishes unsaid.
	Deleting []string `json:"deleting,omitempty"`
}

// Node is one worker with its registered cards.
type Node struct {
	Name  string `json:"name"`
	Cards []Card `json:"cards"`
}

// Card is one registered GPU and the pods holding slices of it.
type Card struct {
	UUID     string  `json:"uuid"`
	Type     string  `json:"type"`
	MemoryMB int     `json:"memoryMB"`
	Cores    int     `json:"cores"`
	Holders  []Slice `json:"holders,omitempty"`
}

// Slice is one pod's share of a card.
type Slice struct {
	Namespace string `json:"namespace"`
	Pod       string `json:"pod"`
	Case      string `json:"case,omitempty"`
	MemoryMB  int    `json:"memoryMB"`
	Cores     int    `json:"cores"`
	Phase     string `json:"phase,omitempty"`
	// State is empty when the pod had settled (Running); otherwise it says
	// what it was still doing when sampled (SliceStarting, SliceBinding).
	State string `json:"state,omitempty"`
}

// States of a Slice that had not settled when sampled.
const (
	// SliceStarting: bound to its node, not Running yet.
	SliceStarting = "bound, starting"
	// SliceBinding: HAMi allocated the slice, the pod is not bound yet.
	SliceBinding = "allocated, binding"
)

// Counts tallies cases by status.
func (r *Run) Counts() (passed, failed, skipped int) {
	for _, c := range r.Cases {
		switch c.Status {
		case Passed:
			passed++
		case Failed:
			failed++
		case Skipped:
			skipped++
		}
	}
	return
}

// OK reports whether the run had no failed case and was not interrupted.
func (r *Run) OK() bool {
	_, failed, _ := r.Counts()
	return failed == 0 && !r.Interrupted
}
