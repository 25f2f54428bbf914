// Package lab is the typed description of a gpu-lab: tenants, their workers and
// the simulated GPUs on each worker, plus every pinned version the lab uses.
//
// A lab comes from a YAML (or JSON) file decoded strictly, or from the embedded
// default that reproduces the seed lab (tenant-a with one A100 80GB, tenant-b
// with two L4 24GB). Load applies defaults and validates in one step; every
// other package receives a *Lab that has already passed Validate.
package lab
