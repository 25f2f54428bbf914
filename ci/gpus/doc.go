// Package gpus owns the HAMi v2.10 wire formats the lab depends on:
//
//   - the node registration HAMi's scheduler reads (JSON annotation
//     hami.io/node-nvidia-register plus the nvidia.com/gpu count resource)
//     and the GPU resources the kubelet admits pods against (Advertised:
//     the count, nvidia.com/gpumem, gpucores and gpumem-percentage);
//   - the per-pod device strings HAMi writes (hami.io/vgpu-devices-*);
//   - the node lock value (hami.io/mutex.lock);
//   - the annotation, resource and reason names, and HAMi's /metrics.
//
// It is plain data and parsing, without a Kubernetes client: the suite's
// assertions (ci/suite/assert) use it without linking client-go. The code
// that writes these formats into a tenant is ci/gpus/deviceplugin.
//
// Formats follow HAMi v2.10.0's source (cited in keys.go and beside each
// parser) and the behaviour recorded in ci/testenv/hamidouble/HAMI-FACTS.md §3.
package gpus
