// Package lab is the typed description of a gpu-lab: tenants, their workers and
// the simulated GPUs on each worker, plus every pinned version the lab uses.
//
// A lab comes from a YAML file (JSON, by JSON's rules, when its name ends in
// .json) of at most maxFileBytes, decoded strictly, or from the embedded
// default that reproduces the seed lab (tenant-a with one A100 80GB, tenant-b
// with two L4 24GB). Load applies defaults and validates in one step, and
// reports every independent problem once (a value of the wrong kind is not
// also out of range); every other package receives a *Lab that has already
// passed validate.
//
// Names the lab derives and the stages use (NodeName, ManagementNodeName,
// the namespaces it installs into, the management kubeconfig's name) live
// here, so validation checks the very names the code creates.
package lab
