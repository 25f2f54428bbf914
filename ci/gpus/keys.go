package gpus

// Annotation, label and resource names of HAMi v2.10.0: pkg/util/types.go:20-27
// (vgpu-time, vgpu-node, bind-time, bind-phase and its values),
// pkg/device/nvidia/device.go:41-59,167-168 (register, handshake, use/nouse,
// cordon, devices-to-allocate, devices-allocated), pkg/util/nodelock/nodelock.go:40
// (mutex.lock), pkg/util/types.go:87,89 (scheduler policies),
// charts/hami/values.yaml:25-28,185,420 (resources, webhook=ignore, gpu=on).
const (
	// Node.
	AnnoRegister  = "hami.io/node-nvidia-register"
	AnnoHandshake = "hami.io/node-handshake"
	AnnoNodeLock  = "hami.io/mutex.lock"
	AnnoCordon    = "hami.io/device-cordon"
	LabelGPUNode  = "gpu"
	LabelGPUOn    = "on"

	// Pod, written by HAMi.
	AnnoVGPUNode         = "hami.io/vgpu-node" // also a label
	AnnoVGPUTime         = "hami.io/vgpu-time"
	AnnoDevicesToAlloc   = "hami.io/vgpu-devices-to-allocate"
	AnnoDevicesAllocated = "hami.io/vgpu-devices-allocated"
	AnnoBindPhase        = "hami.io/bind-phase"
	AnnoBindTime         = "hami.io/bind-time"

	// Pod, set by users.
	AnnoUseGPUType     = "nvidia.com/use-gputype"
	AnnoNoUseGPUType   = "nvidia.com/nouse-gputype"
	AnnoUseGPUUUID     = "nvidia.com/use-gpuuuid"
	AnnoNoUseGPUUUID   = "nvidia.com/nouse-gpuuuid"
	AnnoGPUPolicy      = "hami.io/gpu-scheduler-policy"
	AnnoNodePolicy     = "hami.io/node-scheduler-policy"
	LabelWebhookIgnore = "hami.io/webhook"
	WebhookIgnoreValue = "ignore"

	// Bind phases.
	BindPhaseAllocating = "allocating"
	BindPhaseSuccess    = "success"
	BindPhaseFailed     = "failed"

	// Resources.
	ResourceGPU           = "nvidia.com/gpu"
	ResourceGPUMem        = "nvidia.com/gpumem"
	ResourceGPUCores      = "nvidia.com/gpucores"
	ResourceGPUMemPercent = "nvidia.com/gpumem-percentage"
	ResourcePriority      = "nvidia.com/priority"

	// WebhookName is HAMi's mutating webhook, the one entry of its
	// MutatingWebhookConfiguration (charts/hami/templates/scheduler/webhook.yaml:25).
	WebhookName = "vgpu.hami.io"

	// SchedulerName is the profile HAMi's webhook sets on GPU pods.
	SchedulerName = "hami-scheduler"
	// DeviceVendor is the vendor word in device strings.
	DeviceVendor = "NVIDIA"
)

// Filter failure reasons (HAMi pkg/device/common), as they appear in
// kube-scheduler's FailedScheduling message: "<failing>/<total> <Reason>"
// for card-level reasons, the bare word for node-level ones.
const (
	ReasonCardInsufficientMemory = "CardInsufficientMemory"
	ReasonCardInsufficientCore   = "CardInsufficientCore"
	ReasonCardTypeMismatch       = "CardTypeMismatch"
	ReasonCardUUIDMismatch       = "CardUuidMismatch"
	ReasonCardNotHealth          = "CardNotHealth"
	ReasonCardCordoned           = "CardCordoned"
	ReasonCardTimeSlicing        = "CardTimeSlicingExhausted"
	ReasonExclusiveConflict      = "ExclusiveDeviceAllocateConflict"
	ReasonComputeUnitsExhausted  = "CardComputeUnitsExhausted"
	ReasonNodeInsufficientDevice = "NodeInsufficientDevice"
)
