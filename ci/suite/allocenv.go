package suite

import (
	"fmt"
	"slices"
	"strings"
)

// The environment HAMi v2.10.0's device plugin gives a container in
// Allocate (pkg/device-plugin/nvidiadevice/nvinternal/plugin/server.go
// @v2.10.0):
//
//	:833-837  for i, dev := range devreq {
//	              limitKey := fmt.Sprintf("CUDA_DEVICE_MEMORY_LIMIT_%v", i)
//	              response.Envs[limitKey] = fmt.Sprintf("%vm", dev.Usedmem)
//	          }
//	          response.Envs["CUDA_DEVICE_SM_LIMIT"] = fmt.Sprint(devreq[0].Usedcores)
//	:1057-1058 response.Envs[deviceListEnvVar] = strings.Join(deviceIDs, ",")
//
// with deviceListEnvVar = "NVIDIA_VISIBLE_DEVICES" (:78) and deviceIDs the
// allocated cards' UUIDs (GetContainerDeviceStrArray, plugin/util.go:291-297
// @v2.10.0, outside MIG mode). Usedmem is in MB, so a 20000 MB request reads
// "20000m"; Usedcores is the percentage, "30".
const (
	envMemoryLimitPrefix = "CUDA_DEVICE_MEMORY_LIMIT_"
	envCoreLimit         = "CUDA_DEVICE_SM_LIMIT"
	envVisibleDevices    = "NVIDIA_VISIBLE_DEVICES"
)

// envDumpEnd is the line TC-18's container prints after its environment,
// so a log without it is one not yet (or never) complete, not one whose
// variables are missing.
const envDumpEnd = "gpu-lab-env-end"

// envDumpCommand prints the container's environment, then the end line,
// then keeps the container running until the case deletes the pod.
var envDumpCommand = []string{"sh", "-c", "env; echo " + envDumpEnd + "; sleep 3600"}

// parseEnvDump reads `env` output: one NAME=value a line, split at the
// first "=" (values may hold "="). complete reports whether the end line
// was seen; lines after it are ignored.
func parseEnvDump(log string) (env map[string]string, complete bool) {
	env = map[string]string{}
	for _, line := range strings.Split(log, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == envDumpEnd {
			return env, true
		}
		if name, value, ok := strings.Cut(line, "="); ok && name != "" {
			env[name] = value
		}
	}
	return env, false
}

// allocateEnv is what HAMi's Allocate should have set for a container that
// asked one card for memMB MB and cores % and was given the card uuid.
type allocateEnv struct {
	memMB int
	cores int
	uuid  string
}

// want is the variables as server.go formats them.
func (a allocateEnv) want() map[string]string {
	return map[string]string{
		envMemoryLimitPrefix + "0": fmt.Sprintf("%vm", a.memMB),
		envCoreLimit:               fmt.Sprint(a.cores),
		envVisibleDevices:          a.uuid,
	}
}

// check compares a container's environment with a: every variable must be
// set as HAMi formats it, and no memory limit beyond the one card's.
func (a allocateEnv) check(env map[string]string) error {
	var bad []string
	for _, name := range []string{envMemoryLimitPrefix + "0", envCoreLimit, envVisibleDevices} {
		want := a.want()[name]
		got, ok := env[name]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("%s unset, want %q", name, want))
		case got != want:
			bad = append(bad, fmt.Sprintf("%s=%q, want %q", name, got, want))
		}
	}
	var extra []string
	for name, v := range env {
		if strings.HasPrefix(name, envMemoryLimitPrefix) && name != envMemoryLimitPrefix+"0" {
			extra = append(extra, fmt.Sprintf("%s=%q set for a pod of one card", name, v))
		}
	}
	slices.Sort(extra)
	bad = append(bad, extra...)
	if len(bad) > 0 {
		return fmt.Errorf("HAMi's Allocate environment for %d MB + %d%% on card %s: %s", a.memMB, a.cores, a.uuid, strings.Join(bad, "; "))
	}
	return nil
}
