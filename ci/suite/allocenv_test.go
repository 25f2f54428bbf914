package suite

import (
	"os"
	"strings"
	"testing"
)

// recordedEnvLog is TC-18's container log as the real lab gave it: HAMi
// v2.10.0's device plugin on NVIDIA's mock NVML (k8s-test-infra 0eeb2ee5),
// a pod asking 20000 MB + 30% of tenant-a's A100, kept verbatim by TC-18 in
// the run's diagnostics/TC-18/container-env.log and copied unchanged
// (rehearse run at be555bd, 2026-12-06 05:55 UTC;
// ci/hack/rehearsal/testdata/runs/2026-12-06-bind-phase-joins).
const (
	recordedEnvLog = "testdata/tc18-container-env-2026-12-06.log"
	// recordedCard is the card HAMi allocated in that run.
	recordedCard = "GPU-2221470d-18f6-e13f-3063-141f84f789d9"
)

// recordedEnv reads the recorded log.
func recordedEnv(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(recordedEnvLog)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseEnvDump(t *testing.T) {
	logged := recordedEnv(t)
	env, complete := parseEnvDump(logged)
	if !complete {
		t.Fatal("the end line was not seen")
	}
	for name, want := range map[string]string{
		"CUDA_DEVICE_MEMORY_LIMIT_0": "20000m", "CUDA_DEVICE_SM_LIMIT": "30", "NVIDIA_VISIBLE_DEVICES": recordedCard, "PWD": "/",
	} {
		if env[name] != want {
			t.Errorf("%s = %q, want %q", name, env[name], want)
		}
	}
	// A value holding "=" is split at the first one; CRLF is tolerated.
	env, _ = parseEnvDump("A=b=c\r\n" + envDumpEnd + "\r\nB=after the end\n")
	if env["A"] != "b=c" {
		t.Errorf("A = %q, want b=c", env["A"])
	}
	if _, ok := env["B"]; ok {
		t.Error("a line after the end line was read")
	}
	// Without the end line the dump is incomplete: the container has not
	// (yet) printed all of it.
	if _, complete := parseEnvDump(strings.TrimSuffix(logged, envDumpEnd+"\n")); complete {
		t.Error("a log without the end line reads as complete")
	}
}

// The check passes on HAMi's formatting of the request and fails, naming
// the variable, on each way the environment can be wrong.
func TestAllocateEnvCheck(t *testing.T) {
	a := allocateEnv{memMB: 20000, cores: 30, uuid: recordedCard}
	logged := recordedEnv(t)
	env, _ := parseEnvDump(logged)
	if err := a.check(env); err != nil {
		t.Fatalf("HAMi's own formatting of 20000 MB + 30%%: %v", err)
	}
	for _, tc := range []struct {
		name, replace, with, want string
	}{
		{"memory without HAMi's unit", "LIMIT_0=20000m", "LIMIT_0=20000", `CUDA_DEVICE_MEMORY_LIMIT_0="20000", want "20000m"`},
		{"memory in another unit", "LIMIT_0=20000m", "LIMIT_0=20971520000", `want "20000m"`},
		{"whole card's cores", "SM_LIMIT=30", "SM_LIMIT=100", `CUDA_DEVICE_SM_LIMIT="100", want "30"`},
		{"memory limit unset", "CUDA_DEVICE_MEMORY_LIMIT_0=20000m\n", "", `CUDA_DEVICE_MEMORY_LIMIT_0 unset, want "20000m"`},
		{"core limit unset", "CUDA_DEVICE_SM_LIMIT=30\n", "", `CUDA_DEVICE_SM_LIMIT unset, want "30"`},
		{"another card", recordedCard + "\n", "GPU-other\n", `NVIDIA_VISIBLE_DEVICES="GPU-other", want "` + recordedCard + `"`},
		{"a second card's limit", "PWD=/\n", "PWD=/\nCUDA_DEVICE_MEMORY_LIMIT_1=20000m\n",
			`CUDA_DEVICE_MEMORY_LIMIT_1="20000m" set for a pod of one card`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := strings.Replace(logged, tc.replace, tc.with, 1)
			if log == logged {
				t.Fatalf("%q not in the log", tc.replace)
			}
			env, _ := parseEnvDump(log)
			err := a.check(env)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("check = %v, want an error saying %q", err, tc.want)
			}
		})
	}
	// The wanted values follow the request, not the seed's numbers.
	if w := (allocateEnv{memMB: 4000, cores: 30, uuid: "GPU-t4"}).want(); w["CUDA_DEVICE_MEMORY_LIMIT_0"] != "4000m" ||
		w["NVIDIA_VISIBLE_DEVICES"] != "GPU-t4" {
		t.Errorf("want() on a 4000 MB slice = %v", w)
	}
}
