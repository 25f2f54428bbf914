// Package gpus owns the HAMi v2.10 wire formats the lab depends on, and the
// product code that makes simulated GPUs behave like real ones:
//
//   - the node registration HAMi's scheduler reads (JSON annotation
//     hami.io/node-nvidia-register plus the nvidia.com/gpu count resource);
//   - the per-pod device strings HAMi writes (hami.io/vgpu-devices-*);
//   - the node lock value (hami.io/mutex.lock);
//   - the registrar and the bind finalizer, which finish each HAMi bind the
//     way HAMi's real device plugin does in Allocate (the mock device plugin
//     never does, which is the seed lab's 5-minute node-lock stall).
//
// Formats follow shared/research/hami.md §2 and hami-observed.md.
package gpus
