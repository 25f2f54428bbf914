// Package deviceplugin is the product code that makes simulated GPUs behave
// like real ones on a tenant's API server, doing there what HAMi's real
// device plugin does (it is not a kubelet device plugin: no gRPC, no
// devices):
//
//   - the registrar (RegisterNode) writes a worker's cards
//     onto its Node in the formats of ci/gpus;
//   - the bind finalizer (Finalizer, FinishBind) finishes each HAMi bind the
//     way the real device plugin does in Allocate (the mock device plugin
//     never does, which is the seed lab's 5-minute node-lock stall).
//
// Only the local test environment runs it, in its own process (ci/testenv):
// it has no kubelet for HAMi's device plugin, which the real lab runs.
package deviceplugin
