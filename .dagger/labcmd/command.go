package labcmd

import "strconv"

// Up is the labctl command that runs one stage against the lab file. It
// always passes --keep: tearing down after a failure would only cost time
// (the daemon goes away with the session, and the next run clears what is
// left), and `terminal` must land in the failed lab, not in an empty one.
// The DinD daemon has registry access but starts cold on CI runners, so an
// image pull gets PullTimeout instead of labctl's fail-fast default.
// --images hands it the bundle the module fetched through Dagger's cache.
// --verbose puts labctl's timestamped debug lines (each image load, helm
// call and wait) into logs/STAGE.log, as the rehearsal's labctl-up.log has
// them: a stage that is slow or fails in the Docker-in-Docker service can
// only be explained from there.
func Up(stage string) []string {
	return []string{"labctl", "up", "-f", ConfigPath, "--state-dir", StateDir, "--only", stage, "--keep",
		"--pull-timeout", PullTimeout, "--images", BundleDir, "--verbose"}
}

// PullTimeout bounds one image pull by the lab's daemon (a kindest/node
// image is several hundred MB).
const PullTimeout = "10m"

// Test is the labctl command that runs the suite and writes every report.
func Test(s Suite) []string {
	args := []string{"labctl", "test", "--state-dir", StateDir, "--report-dir", ReportDir}
	if s.Run != "" {
		args = append(args, "--run", s.Run)
	}
	if s.Parallel > 0 {
		args = append(args, "--parallel", strconv.Itoa(s.Parallel))
	}
	return args
}

// Plan prints the resolved lab; with outDir it also writes every rendered
// manifest there.
func Plan(outDir string) []string {
	args := []string{"labctl", "plan", "-f", ConfigPath}
	if outDir != "" {
		args = append(args, "-o", outDir)
	}
	return args
}

// Validate checks the lab file and prints every error at once.
func Validate() []string {
	return []string{"labctl", "validate", "-f", ConfigPath}
}

// Wipe removes what an earlier run left in the cached Docker data root
// (containers, networks, volumes: a stale kind cluster would collide with
// the new one) and keeps the images, which are the point of the cache. It is
// best effort: every command runs even when an earlier one failed, and a
// failure only makes the script exit 1 with a line naming what failed. The
// module records that in logs/wipe.log and goes on (a leftover that really
// collides fails its stage with labctl's own error).
func Wipe() []string {
	return []string{"sh", "-uc", wipeScript}
}

const wipeScript = `failed=""
ids=$(docker ps -aq) || failed="$failed ps"
if [ -n "$ids" ]; then docker rm -fv $ids >/dev/null || failed="$failed rm"; fi
docker network prune -f >/dev/null || failed="$failed network-prune"
docker volume prune -af >/dev/null || failed="$failed volume-prune"
if [ -n "$failed" ]; then
  echo "docker: clearing what earlier runs left failed in:$failed (see above); going on, images kept"
  exit 1
fi
echo "docker: cleared containers, networks and volumes left by earlier runs; images kept"`

// Names inside labctl's state dir (ci/state: KubeconfigsDir and
// ManagementName; moduletest's TestStateLayoutMatchesLabctl keeps them
// equal). The module reads kubeconfigs from there and leaves them out of
// the state it hands back.
const (
	StateKubeconfigs = "kubeconfigs"
	StateManagement  = "management"
)

// ShellScript is the interactive shell of `lab ... terminal`, with the
// variables `labctl shell` sets (KUBECONFIG_<TENANT>, KUBECONFIG_MANAGEMENT,
// KUBECONFIG listing the tenants, then the management cluster) but working
// for any partial lab, including one without tenants yet.
func ShellScript() []string {
	return []string{"sh", "-c", shellScript}
}

const shellScript = `cd ` + WorkDir + `
kc=""
for f in ` + StateDir + `/` + StateKubeconfigs + `/*.yaml; do
  [ -e "$f" ] || continue
  n=$(basename "$f" .yaml)
  v=KUBECONFIG_$(echo "$n" | tr 'a-z-' 'A-Z_')
  export "$v=$f"
  echo "$v=$f"
  [ "$n" = ` + StateManagement + ` ] || kc="${kc:+$kc:}$f"
done
m=` + StateDir + `/` + StateKubeconfigs + `/` + StateManagement + `.yaml
if [ -e "$m" ]; then kc="${kc:+$kc:}$m"; fi
export KUBECONFIG="$kc"
echo "KUBECONFIG=$KUBECONFIG"
echo "state: ` + StateDir + `  reports: ` + ReportDir + `  (labctl test --state-dir ` + StateDir + `)"
exec sh -i`
