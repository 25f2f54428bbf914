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

// DefaultLabFile is the seed lab in the source tree, used when no --config
// is given (the same file labctl embeds).
const DefaultLabFile = "ci/lab/default-lab.yaml"

// BuildInclude is what building labctl needs from the source tree; nothing
// else can bust the build cache.
var BuildInclude = []string{"go.mod", "go.sum", "ci/**", "manifests/**"}

// ExitCodeFile is written into every reports directory the module returns:
// labctl's exit status of the run (0 = every stage and case passed).
const ExitCodeFile = "exit-code"

// DindStopGrace bounds each attempt to stop the Docker-in-Docker service: a
// graceful stop first, then a kill. Dagger's Service.stop waits for the
// service to exit with no limit of its own (core/service.go, stopSvc), and a
// daemon stuck stopping kind nodes must not hold the call (the next run
// wipes whatever is left).
const DindStopGrace = 30 * time.Second
