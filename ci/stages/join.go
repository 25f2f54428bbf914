package stages

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/internal/kubeconfig"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// kubeadm v1.36.3's own waits in a worker join (cmd/kubeadm/app/constants/
// constants.go, the defaults of JoinConfiguration.timeouts in
// apis/kubeadm/v1beta4/defaults.go): discovery of the cluster-info
// ConfigMap, the kubelet's health check, then the kubelet's TLS bootstrap
// (cmd/phases/join/kubelet.go waits for both in turn).
const (
	kubeadmDiscoveryTimeout          = 5 * time.Minute
	kubeadmKubeletHealthCheckTimeout = 4 * time.Minute
	kubeadmTLSBootstrapTimeout       = 5 * time.Minute
	// kubeadmAPICallTimeout (KubernetesAPICallTimeout) bounds each API call
	// kubeadm makes after the bootstrap; one is the cut-off's margin.
	kubeadmAPICallTimeout = 1 * time.Minute
)

// defaultJoinTimeout is when labctl gives up on one `kubeadm join`: after every wait
// kubeadm allows itself, so a slow but healthy join is never cut off
// half-way (which would leave a half-joined worker behind).
const defaultJoinTimeout = kubeadmDiscoveryTimeout + kubeadmKubeletHealthCheckTimeout + kubeadmTLSBootstrapTimeout + kubeadmAPICallTimeout

// joinWorker joins the node unless the tenant already has it.
func joinWorker(ctx context.Context, e *Env, tc *Clients, t lab.Tenant, name, mgmtIP string) error {
	if _, err := tc.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{}); err == nil {
		return nil
	} else if !apierrors.IsNotFound(err) {
		return fail(stageWorkers, "Node "+name+" in tenant "+t.Name, "", err)
	}
	// kubeadm reset -f below wipes whatever Kubernetes node runs here: only
	// in a worker labctl started for this tenant from this state dir, checked
	// before anything is written for it.
	c, err := e.Docker.InspectContainer(ctx, name)
	if err != nil {
		return fail(stageWorkers, "container "+name, "", err)
	}
	if err := e.workerOwned(c, t.Name); err != nil {
		return fail(stageWorkers, "container "+name, "", err)
	}
	conf, err := joinConfigFor(ctx, e, tc, t, c, name, mgmtIP)
	if err != nil {
		return err
	}
	// Nothing run here changes the host's kernel (see "The host's kernel"
	// below).
	// Every time: the Node is absent, so anything kubeadm left here is from
	// an attempt that did not finish (kubeadm writes pki/ca.crt and starts
	// the kubelet before the TLS bootstrap ends), and a join on top of it
	// fails. A reset that fails is reported with the join's failure.
	resetOut, resetErr := e.Docker.Exec(ctx, name, nil, resetCommand...)
	if out, err := e.Docker.Exec(ctx, name, bytes.NewReader(conf), "sh", "-c", writeJoinConfigScript); err != nil {
		return fail(stageWorkers, joinConfigPath+" in "+name, lastLines(string(out), 1), err)
	}
	jctx, cancel := context.WithTimeout(ctx, e.joinTimeout())
	defer cancel()
	if out, err := e.Docker.Exec(jctx, name, nil, joinCommand...); err != nil {
		cond := lastLines(string(out), 3)
		if resetErr != nil {
			cond = fmt.Sprintf("%s failed before it (%v: %s); %s",
				strings.Join(resetCommand, " "), resetErr, lastLines(string(resetOut), 1), cond)
		}
		return fail(stageWorkers, "kubeadm join of "+name+" to tenant "+t.Name, cond, err)
	}
	return nil
}

// joinConfigFor renders the JoinConfiguration of worker container c: the
// tenant's CA hash from its kubeconfig, a new bootstrap token (its Secret
// created in the tenant, valid for an hour) and the container's address on
// the lab's network.
func joinConfigFor(ctx context.Context, e *Env, tc *Clients, t lab.Tenant, c docker.Container, name, mgmtIP string) ([]byte, error) {
	kc, err := os.ReadFile(e.State.Kubeconfig(t.Name))
	if err != nil {
		return nil, fail(stageWorkers, "tenant "+t.Name+" kubeconfig", "", err)
	}
	ca, err := kubeconfig.CA(kc)
	if err != nil {
		return nil, fail(stageWorkers, "tenant "+t.Name+" kubeconfig", "", err)
	}
	hash, err := kubeconfig.CACertHash(ca)
	if err != nil {
		return nil, fail(stageWorkers, "tenant "+t.Name+" CA", "", err)
	}
	id, secret, err := kubeconfig.NewBootstrapToken(rand.Reader)
	if err != nil {
		return nil, fail(stageWorkers, "bootstrap token", "", err)
	}
	tok := kubeconfig.BootstrapTokenSecret(id, secret, time.Now().Add(time.Hour))
	if _, err := tc.Kube.CoreV1().Secrets("kube-system").Create(ctx, tok, metav1.CreateOptions{}); err != nil {
		return nil, fail(stageWorkers, "Secret kube-system/bootstrap-token-"+id+" in tenant "+t.Name, "", err)
	}
	ip, err := docker.ContainerIPv4(c, e.Network)
	if err != nil {
		return nil, fail(stageWorkers, "container "+name, "", err)
	}
	conf, err := render.JoinConfiguration(render.JoinSpec{Endpoint: fmt.Sprintf("%s:%d", mgmtIP, t.Ports.APIServer),
		Token: id + "." + secret, CACertHash: hash, NodeName: name, NodeIP: ip.String()})
	if err != nil {
		return nil, fail(stageWorkers, "join configuration for "+name, "", err)
	}
	return conf, nil
}

// joinTimeout is Timeouts.Join, or defaultJoinTimeout when unset: a zero value
// must not cut every join off at once.
func (e *Env) joinTimeout() time.Duration {
	if e.Timeouts.Join > 0 {
		return e.Timeouts.Join
	}
	return defaultJoinTimeout
}

// The host's kernel: a worker is privileged and mounts the host's
// /lib/modules, so a command run in it acts on the host's kernel. The join
// runs none: no `swapoff -a` (it would turn off the host's swap devices)
// and no `modprobe br_netfilter` (it would load a module into the host's
// kernel), and the lab needs neither.
//
//   - kubeadm checks swap and /proc/sys/net/bridge/bridge-nf-call-iptables
//     only in its preflight phase, which the join skips
//     (render.JoinSkipPhases, as kind v0.33.0 does for its own nodes); the
//     kubelet a join starts reads the tenant's kubelet-config ConfigMap,
//     which Kamaji 26.8.2-edge writes with the TenantControlPlane's
//     configurationJSONPatches applied (internal/resources/
//     kubeadm_phases.go:158-168, internal/kubeadm/uploadconfig.go:75-105),
//     and the lab's patches set failSwapOn: false
//     (render.kindKubeletPatches), as kind does
//     (pkg/cluster/internal/kubeadm/config.go:602).
//   - br_netfilter is what Docker's bridge driver loads on the host itself
//     when it sets up iptables for a bridge network such as the one the
//     workers are on (moby v20.10.24 vendor/github.com/docker/libnetwork/
//     drivers/bridge/bridge.go:381-386; docker-v29.7.2
//     daemon/libnetwork/drivers/bridge/setup_bridgenetfiltering.go:48-54),
//     and kind's nodes, which the workers are like, never load it (kind's
//     tree at v0.33.0-alpha, the newest tag of the snapshot, names no
//     br_netfilter).
//
// A host without it is the host's to fix (its Docker reports it), not a
// step the lab takes silently.

// resetCommand undoes whatever an earlier kubeadm join left in a worker
// (kubeadm v1.36.3 cmd/kubeadm/app/cmd/reset.go: -f is --force, no prompt).
var resetCommand = []string{"kubeadm", "reset", "-f"}

// lastLines keeps the tail of command output for a condition.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
