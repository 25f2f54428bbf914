package suite

import (
	"strings"
	"testing"
)

// No recorded log of TC-18's container exists yet: the real lab's run with
// HAMi's device plugin (ci/rehearsal/testdata/runs/2026-12-06-hami-device-plugin)
// kept only the values TC-18 read, in its steps, not the log. The logs
// below are therefore not recorded output. They are `env` output as it
// would read with the variables HAMi v2.10.0 sets, written by hand from
// server.go's format strings
// (pkg/device-plugin/nvidiadevice/nvinternal/plugin/server.go:833-837
// and :1057-1058@v2.10.0: "%vm" of Usedmem in MB, fmt.Sprint of Usedcores,
// the UUIDs joined by ","), the other lines as a Debian container's env
// prints them. TC-18 now keeps the log it read, verbatim, in the run's
// diagnostics/TC-18/container-env.log (containerEnvFile): copy the next
// real-lab run's into testdata with its provenance and test on it.
const (
	seedCard = "GPU-0f6a3c1e-5b2d-4e8f-9a7c-1d2e3f4a5b6c"
	// handWrittenEnv: 20000 MB + 30% on seedCard, HAMi's formatting.
	handWrittenEnv = "HOSTNAME=tc18-env\n" +
		"CUDA_DEVICE_MEMORY_SHARED_CACHE=/usr/local/vgpu/6b1f3c9e-2a4d-4c1b-8e7f-0a9b8c7d6e5f.cache\n" +
		"NVIDIA_VISIBLE_DEVICES=" + seedCard + "\n" +
		"CUDA_DEVICE_MEMORY_LIMIT_0=20000m\n" +
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n" +
		"CUDA_DEVICE_SM_LIMIT=30\n" +
		"KUBERNETES_SERVICE_HOST=10.96.0.1\n" +
		"PWD=/\n" +
		envDumpEnd + "\n"
)

func TestParseEnvDump(t *testing.T) {
	env, complete := parseEnvDump(handWrittenEnv)
	if !complete {
		t.Fatal("the end line was not seen")
	}
	for name, want := range map[string]string{
		"CUDA_DEVICE_MEMORY_LIMIT_0": "20000m", "CUDA_DEVICE_SM_LIMIT": "30", "NVIDIA_VISIBLE_DEVICES": seedCard, "PWD": "/",
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
	if _, complete := parseEnvDump(strings.TrimSuffix(handWrittenEnv, envDumpEnd+"\n")); complete {
		t.Error("a log without the end line reads as complete")
	}
}

// The check passes on HAMi's formatting of the request and fails, naming
// the variable, on each way the environment can be wrong.
func TestAllocateEnvCheck(t *testing.T) {
	a := allocateEnv{memMB: 20000, cores: 30, uuid: seedCard}
	env, _ := parseEnvDump(handWrittenEnv)
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
		{"another card", seedCard + "\n", "GPU-other\n", `NVIDIA_VISIBLE_DEVICES="GPU-other", want "` + seedCard + `"`},
		{"a second card's limit", "PWD=/\n", "PWD=/\nCUDA_DEVICE_MEMORY_LIMIT_1=20000m\n", `CUDA_DEVICE_MEMORY_LIMIT_1="20000m" set for a pod of one card`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := strings.Replace(handWrittenEnv, tc.replace, tc.with, 1)
			if log == handWrittenEnv {
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
	if w := (allocateEnv{memMB: 4000, cores: 30, uuid: "GPU-t4"}).want(); w["CUDA_DEVICE_MEMORY_LIMIT_0"] != "4000m" || w["NVIDIA_VISIBLE_DEVICES"] != "GPU-t4" {
		t.Errorf("want() on a 4000 MB slice = %v", w)
	}
}
