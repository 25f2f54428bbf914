package labcmd

import "time"

// Paths inside the runner container. The state and report directories are
// the ones labctl is told about; the module reads them back as directories.
const (
	WorkDir    = "/lab"
	ConfigPath = "/lab/lab.yaml"
	StateDir   = "/lab/state"
	ReportDir  = "/lab/reports"
	LogDir     = "/lab/reports/logs"
	LabctlPath = "/usr/local/bin/labctl"
	HelmPath   = "/usr/local/bin/helm"
	// ManifestsDir is where `labctl plan -o` writes rendered manifests.
	ManifestsDir = "/lab/manifests"
)

// The Docker-in-Docker service as seen from the runner: labctl derives
// everything remote-specific (API server on 0.0.0.0:6443 with the SAN
// "docker", NodePorts published on the daemon, kubeconfigs rewritten to
// docker:<port>) from DOCKER_HOST alone (ci/stages.ReachFor).
const (
	DockerAlias = "docker"
	DockerPort  = 2375
	DockerHost  = "tcp://docker:2375"
)

// NonceEnv is set to a fresh value on every exec that acts on the Docker
// service, so Dagger never replays a cached result of an earlier session
// against a new, empty daemon.
const NonceEnv = "GPU_LAB_RUN_ID"

// Images and cache volumes. The DinD data volume is keyed by the Docker
// major version because an older daemon must not open a newer one's store.
const (
	GoImage     = "golang:1.26"
	DindImage   = "docker:29-dind"
	RunnerImage = "docker:29-cli"

	GoModCache   = "gpu-lab-go-mod"
	GoBuildCache = "gpu-lab-go-build"
	DockerCache  = "gpu-lab-dind-29"
)

// HelmVersion is the helm CLI the stages shell out to (ci/internal/helm.Version;
// a test keeps them equal).
const HelmVersion = "v3.19.0"

// LabctlPackages are the directories of the gpu-lab packages labctl is
// built from (`go list -deps ./ci/cmd/labctl`), and LabctlEmbeds the files
// they embed: a test keeps both equal to what the Go toolchain says, so the
// build's inputs are exactly what labctl needs — a README, a test or
// testdata edit never rebuilds it.
var (
	LabctlPackages = []string{
		"ci/cmd/labctl", "ci/docker", "ci/gpus", "ci/gpus/deviceplugin", "ci/images",
		"ci/internal/helm", "ci/internal/kube", "ci/internal/kubeconfig", "ci/internal/nodeimage",
		"ci/internal/steps", "ci/lab", "ci/render", "ci/report", "ci/results", "ci/stages",
		"ci/stages/internal/diagnostics", "ci/stages/internal/owner", "ci/stages/internal/preflight",
		"ci/stages/internal/pullpolicy", "ci/state",
		"ci/suite", "ci/suite/assert", "ci/testenv", "ci/testenv/bincache", "ci/testenv/hamidouble",
		"manifests",
	}
	LabctlEmbeds = []string{
		"ci/lab/default-lab.yaml", "ci/report/report.html.tmpl", "manifests/*.yaml",
	}
)

// BuildInclude is what building labctl reads from the source tree, and
// BuildExclude what it never reads (tests). QuickInclude adds the module
// `labctl testenv build` builds the Kubernetes binaries from.
var (
	BuildInclude = buildInclude()
	BuildExclude = []string{"**/*_test.go"}
	QuickInclude = append(buildInclude(), "ci/testenv/k8sbin/go.mod", "ci/testenv/k8sbin/go.sum",
		"ci/testenv/k8sbin/*.go", "ci/testenv/k8sbin/cmd/**/*.go")
)

func buildInclude() []string {
	in := []string{"go.mod", "go.sum"}
	for _, p := range LabctlPackages {
		in = append(in, p+"/*.go")
	}
	return append(in, LabctlEmbeds...)
}

// ExitCodeFile is written into every reports directory the module returns:
// labctl's exit status of the run (0 = every stage and case passed).
const ExitCodeFile = "exit-code"

// DindStopGrace bounds each attempt to stop the Docker-in-Docker service: a
// graceful stop first, then a kill. Dagger's Service.stop waits for the
// service to exit with no limit of its own (core/service.go, stopSvc), and a
// daemon stuck stopping kind nodes must not hold the call (the next run
// wipes whatever is left).
const DindStopGrace = 30 * time.Second
