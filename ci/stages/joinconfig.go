package stages

// A worker joins with a kubeadm JoinConfiguration file, as kind v0.33.0
// joins its own workers (sigs.k8s.io/kind@v0.33.0
// pkg/cluster/internal/create/actions/kubeadmjoin/join.go runs
// `kubeadm join --config /kind/kubeadm.conf`). ci/render renders the
// document (render.JoinConfiguration); this is where it goes in the worker
// and how kubeadm is run on it.

// joinConfigPath is where the worker's JoinConfiguration is written (kind's
// path; /kind exists in every kindest/node image).
const joinConfigPath = "/kind/kubeadm.conf"

// writeJoinConfigScript writes stdin to joinConfigPath, readable by root
// only: the file holds the bootstrap token.
var writeJoinConfigScript = "umask 077 && mkdir -p /kind && cat > " + joinConfigPath

// joinCommand is the argv of `kubeadm join` inside a worker, reading the
// configuration render.JoinConfiguration rendered. kubeadm v1.36.3 refuses
// most flags next to --config (ValidateMixedArguments in
// cmd/kubeadm/app/apis/kubeadm/validation/validation.go), so everything
// else is in the file, skipPhases included, as kind does for kubeadm >= 1.23.
var joinCommand = []string{"kubeadm", "join", "--config", joinConfigPath}
