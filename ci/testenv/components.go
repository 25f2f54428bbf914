package testenv

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

// The command lines of a tenant's Kubernetes components. What each flag
// added only for speed or memory does, and why the suite loses nothing by
// it, is in tuning.go.

func (t *tenant) startKonnectivityServer(ctx context.Context) error {
	var err error
	t.konnServer, err = t.env.startBound(ctx, t.component("konnectivity-server"), filepath.Join(t.env.bins, bincache.ProxyServer), []string{
		"--mode=grpc",
		"--uds-name=" + t.socket,
		"--delete-existing-uds-file=true",
		"--server-port=0",
		"--agent-bind-address=127.0.0.1",
		"--agent-port=" + strconv.Itoa(t.agentPort),
		"--health-bind-address=127.0.0.1",
		"--health-port=" + strconv.Itoa(t.konnHealthPort),
		"--admin-bind-address=127.0.0.1",
		"--admin-port=" + strconv.Itoa(t.konnAdminPort),
		"--cluster-cert=" + t.path("apiserver.crt"),
		"--cluster-key=" + t.path("apiserver.key"),
		"--server-count=1",
		"--v=2",
	}, t.logPath("konnectivity-server"), []*int{&t.agentPort, &t.konnHealthPort, &t.konnAdminPort}, nil)
	return err
}

func (t *tenant) startAPIServer(ctx context.Context) error {
	var err error
	t.apiserver, err = t.env.startBound(ctx, t.component("kube-apiserver"), filepath.Join(t.env.bins, bincache.KubeAPIServer),
		append(append([]string{
			"--etcd-servers=" + t.env.etcdURL,
			"--etcd-prefix=/" + t.name(),
			"--bind-address=127.0.0.1",
			"--advertise-address=127.0.0.1",
			"--secure-port=" + strconv.Itoa(t.apiPort),
			"--cert-dir=" + t.path("certs"),
			"--tls-cert-file=" + t.path("apiserver.crt"),
			"--tls-private-key-file=" + t.path("apiserver.key"),
			"--client-ca-file=" + t.path("ca.crt"),
			"--service-account-key-file=" + t.path("sa.pub"),
			"--service-account-signing-key-file=" + t.path("sa.key"),
			"--service-account-issuer=https://kubernetes.default.svc." + t.name(),
			"--service-cluster-ip-range=" + serviceClusterIPRange,
			"--authorization-mode=RBAC",
			// A loopback advertise address cannot be an endpoint of the
			// kubernetes Service; without this the reconciler logs errors forever.
			"--endpoint-reconciler-type=none",
			"--egress-selector-config-file=" + t.path("egress-selector.yaml"),
			"--profiling=false",
			"--v=1",
		}, t.env.etcdTLS.apiServerArgs()...), tuningArgs(apiServerTuning)...), t.logPath("kube-apiserver"), []*int{&t.apiPort}, t.apiServerMoved,
		tuningArgs(apiServerEnv)...)
	return err
}

func (t *tenant) startAgent(ctx context.Context) error {
	var err error
	t.agent, err = t.env.startBound(ctx, t.component("konnectivity-agent"), filepath.Join(t.env.bins, bincache.ProxyAgent), []string{
		"--ca-cert=" + t.path("ca.crt"),
		"--proxy-server-host=127.0.0.1",
		"--proxy-server-port=" + strconv.Itoa(t.agentPort),
		// The agent's health server binds every interface unless told.
		"--health-server-host=127.0.0.1",
		"--health-server-port=" + strconv.Itoa(t.agentHealthPort),
		"--admin-bind-address=127.0.0.1",
		"--admin-server-port=" + strconv.Itoa(t.agentAdminPort),
		"--agent-identifiers=host=" + t.name(),
		"--sync-interval=200ms",
		"--v=2",
	}, t.logPath("konnectivity-agent"), []*int{&t.agentHealthPort, &t.agentAdminPort}, nil)
	if err == nil {
		t.agent.killOnly = true // it ignores SIGTERM (UPSTREAM-FACTS.md §3)
	}
	return err
}

func (t *tenant) waitAPIServer(ctx context.Context) error {
	// Polled twice as often as the other checks: everything else waits
	// for it, and a /readyz answer costs the API server little.
	return waitFor(ctx, "kube-apiserver /readyz", readyPoll/2, []*process{t.apiserver, t.konnServer}, func(ctx context.Context) (bool, error) {
		body, err := t.client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && string(body) == "ok", err
	})
}

func (t *tenant) startScheduler(ctx context.Context) error {
	cfg, err := schedulerConfig(t.env.lab, t.hamiPlace())
	if err != nil {
		return err
	}
	if err := os.WriteFile(t.path("scheduler-config.yaml"), []byte(cfg), 0o644); err != nil {
		return err
	}
	args := append([]string{"--config=" + t.path("scheduler-config.yaml")}, t.servingFlags("scheduler", t.schedPort)...)
	args = append(args, "--v=1")
	t.scheduler, err = t.env.startBound(ctx, t.component("kube-scheduler"), filepath.Join(t.env.bins, bincache.KubeScheduler), args,
		t.logPath("kube-scheduler"), []*int{&t.schedPort}, nil)
	return err
}

func (t *tenant) startControllerManager(ctx context.Context) error {
	args := append([]string{"--kubeconfig=" + t.path("controller-manager.kubeconfig")}, t.servingFlags("controller-manager", t.kcmPort)...)
	args = append(args,
		"--service-account-private-key-file="+t.path("sa.key"),
		"--root-ca-file="+t.path("ca.crt"),
		"--use-service-account-credentials=true",
		"--cluster-signing-cert-file="+t.path("ca.crt"),
		"--cluster-signing-key-file="+t.path("ca.key"),
		"--service-cluster-ip-range="+serviceClusterIPRange,
		// The node lifecycle controller lifts the not-ready taint the
		// TaintNodesByCondition admission plugin puts on every new Node;
		// checking every second instead of every 5 s makes workers
		// schedulable sooner.
		"--node-monitor-period=1s",
		"--controllers="+strings.Join(controllers, ","),
		"--v=1",
	)
	args = append(args, tuningArgs(controllerManagerTuning)...)
	var err error
	t.kcm, err = t.env.startBound(ctx, t.component("kube-controller-manager"), filepath.Join(t.env.bins, bincache.KubeControllerManager), args,
		t.logPath("kube-controller-manager"), []*int{&t.kcmPort}, nil)
	return err
}

// servingFlags are what kube-scheduler and kube-controller-manager share
// (k8s.io/component-base and controller-manager options): authentication
// and authorization delegated through the component's kubeconfig, a
// secure port on loopback with the serving certificate written for it
// (NAME.kubeconfig, NAME-serving.crt/.key), and no leader election (one
// replica per tenant).
func (t *tenant) servingFlags(name string, port int) []string {
	return []string{
		"--authentication-kubeconfig=" + t.path(name+".kubeconfig"),
		"--authorization-kubeconfig=" + t.path(name+".kubeconfig"),
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + t.path(name+"-serving.crt"),
		"--tls-private-key-file=" + t.path(name+"-serving.key"),
		"--leader-elect=false",
	}
}

// startKWOK runs KWOK without its server (no --server-address and no
// --node-port: it then starts none, sigs.k8s.io/kwok@v0.8.0
// pkg/kwok/cmd/root.go:320-323). That server has no client authentication
// at this version — only --tls-cert-file/--tls-private-key-file for its own
// certificate (root.go:86-87), and Server.Run serves plain HTTP and HTTPS
// on one port to anyone (pkg/kwok/server/server.go:487-560) — so on
// loopback any local user could use it; and nothing here needs it (the
// environment configures no logs, exec, attach, port-forward or metrics
// for it to serve). The stages that keep Nodes and pods alive are KWOK's
// controllers, which run without it.
func (t *tenant) startKWOK(ctx context.Context) error {
	var err error
	t.kwok, err = t.env.startBound(ctx, t.component("kwok"), filepath.Join(t.env.bins, bincache.KWOK), []string{
		"--kubeconfig=" + t.path("admin.kubeconfig"),
		"--config=" + filepath.Join(t.env.bins, bincache.KWOKStagesFile),
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=" + kwokNodeAnnotation + "=" + kwokNodeValue,
		"--node-lease-duration-seconds=40",
		"--cidr=10.244.0.0/16",
		"--node-ip=127.0.0.1",
	}, t.logPath("kwok"), nil, nil)
	return err
}
