package labcmd

import (
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// The quick test: the local test environment (real kube-apiserver,
// kube-scheduler, kube-controller-manager, etcd, konnectivity, KWOK as
// processes) with HAMi's real scheduler taken from HAMi's official image,
// in one plain container: no Docker daemon, no privileged nesting.
const (
	// HAMiImageRepository is where HAMi chart 2.10.0 takes the scheduler
	// extender's image from (charts/hami/values.yaml@v2.10.0:
	// scheduler.extender.image registry docker.io, repository
	// projecthami/hami, tag global.imageTag).
	HAMiImageRepository = "docker.io/projecthami/hami"
	// HAMiImageTag is the lab's pinned HAMi image tag (ci/lab's default
	// versions.hamiImage; a test keeps them equal), used when the lab file
	// sets none.
	HAMiImageTag = "v2.10.0"
	// HAMiSchedulerInImage is the scheduler binary in HAMi's image
	// (docker/Dockerfile@v2.10.0 copies the build's /k8s-vgpu/bin).
	HAMiSchedulerInImage = "/k8s-vgpu/bin/scheduler"

	// QuickSourceDir holds the gpu-lab source: `labctl testenv build`
	// builds the Kubernetes binaries from its ci/testenv/k8sbin.
	QuickSourceDir = "/lab/src"
	// QuickHAMiPath is where HAMi's scheduler binary is put.
	QuickHAMiPath = "/lab/hami/scheduler"
	// QuickCacheDir is XDG_CACHE_HOME of the quick test's labctl: the
	// Kubernetes binaries it builds stay there, on cache volume K8sBinCache.
	QuickCacheDir = "/cache"
	// K8sBinCache keeps the built Kubernetes binaries between runs.
	K8sBinCache = "gpu-lab-k8sbin"
	// QuickLog is the environment's own log (labctl testenv up's output).
	QuickLog = LogDir + "/testenv.log"
)

// K8sBinSourceEnv tells labctl where the nested build module is
// (ci/testenv/bincache.EnvSourceDir): a -trimpath labctl cannot find it
// next to its own source.
const K8sBinSourceEnv = "GPU_LAB_K8SBIN_SRC"

// HAMiImage is the official HAMi image of the lab file's versions.hamiImage
// (HAMiImageTag when the file sets none).
func HAMiImage(labYAML []byte) (string, error) {
	var f struct {
		Versions struct {
			HAMiImage string `json:"hamiImage"`
		} `json:"versions"`
	}
	if err := yaml.Unmarshal(labYAML, &f); err != nil {
		return "", fmt.Errorf("lab file: %w", err)
	}
	tag := strings.TrimSpace(f.Versions.HAMiImage)
	if tag == "" {
		tag = HAMiImageTag
	}
	if strings.ContainsAny(tag, ":/@ ") {
		return "", fmt.Errorf("lab file: versions.hamiImage %q: want a tag of %s such as %s", tag, HAMiImageRepository, HAMiImageTag)
	}
	return HAMiImageRepository + ":" + tag, nil
}

// QuickBuild builds the local test environment's Kubernetes binaries into
// the cache (at once when they are there).
func QuickBuild() []string {
	return []string{"labctl", "testenv", "build"}
}

// QuickTest runs the local test environment with HAMi's real scheduler in
// the background, waits for its "ready" line, runs the suite into the
// report dir, stops the environment and exits with the suite's exit code;
// when the environment does not come up it exits with labctl testenv up's
// code (or 1) and prints the end of its log. labctl test's arguments are the
// script's positional parameters, so a --run pattern stays one argument.
func QuickTest(s Suite) []string {
	test := Test(s)
	return append([]string{"sh", "-uc", quickScript, "quick-test"}, test...)
}

// SIGTERM stops the environment: a shell's background job ignores SIGINT,
// and labctl stops on either (ci/cmd/labctl main.go). The name of the
// binary and its flags are labctl's (ci/cmd/labctl
// testenv.go: --hami-binary, --state-dir, -f; it prints "ready" alone on a
// line once every tenant is ready).
var quickScript = `mkdir -p ` + LogDir + `
labctl testenv up -f ` + ConfigPath + ` --state-dir ` + StateDir + ` --hami-binary ` + QuickHAMiPath + ` >` + QuickLog + ` 2>&1 &
up=$!
until grep -qx ready ` + QuickLog + `; do
  if ! kill -0 "$up" 2>/dev/null; then
    code=0; wait "$up" || code=$?
    echo "labctl testenv up exited with code $code before it was ready; ` + QuickLog + ` ends with:"
    tail -n 40 ` + QuickLog + `
    [ "$code" -ne 0 ] || code=1
    exit "$code"
  fi
  sleep 1
done
grep -E '^(hami|backend): ' ` + QuickLog + `
"$@"
code=$?
kill -TERM "$up"
wait "$up" || echo "labctl testenv up did not stop cleanly; see ` + QuickLog + `"
exit "$code"`
