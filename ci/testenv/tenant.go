package testenv

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/testenv/hamidouble"
)

// serviceClusterIPRange is every tenant's service network; 10.96.0.1 is the
// kubernetes Service, named in the API server's certificate.
const serviceClusterIPRange = "10.96.0.0/16"

// controllers are the kube-controller-manager controllers a workload suite
// on KWOK workers can observe; storage, certificate signing, IPAM and the
// like are left out so the manager starts faster, and so are Jobs and
// CronJobs, whose API the tenant API servers do not serve (disabledAPIs).
var controllers = []string{
	"serviceaccount-token-controller", "serviceaccount-controller", "root-ca-certificate-publisher-controller",
	"namespace-controller", "garbage-collector-controller", "resourcequota-controller", "clusterrole-aggregation-controller",
	"node-lifecycle-controller", "taint-eviction-controller", "pod-garbage-collector-controller",
	"deployment-controller", "replicaset-controller", "replicationcontroller-controller", "statefulset-controller",
	"daemonset-controller", "disruption-controller",
	"endpoints-controller", "endpointslice-controller", "endpointslice-mirroring-controller",
}

// tenant is one tenant's control plane, tunnel, workers and double.
type tenant struct {
	env  *Env
	spec lab.Tenant
	dir  string

	ca         *ca
	server     string // https://127.0.0.1:<port>
	apiPort    int
	admin      keyPair
	kubeconfig []byte // admin
	rest       *rest.Config
	client     kubernetes.Interface

	// konnectivity
	socket                        string
	agentPort, konnHealthPort     int
	konnAdminPort, agentAdminPort int
	agentHealthPort               int

	schedPort, kcmPort int

	apiserver, konnServer, agent, scheduler, kcm, kwok *process

	// HAMi's scheduler (the protocol double or a real binary) as a process.
	hami       *process
	double     *hamidouble.Remote // its test controls; Err set for a real HAMi
	doubleCert keyPair            // HAMi's serving certificate (--cert_file)
	hamiPort   int                // 127.0.0.1: --http_bind, called by kube-scheduler directly
	// metricsPort is HAMi's --metrics-bind-address on 127.0.0.1.
	metricsPort int
	webhookAddr *net.TCPAddr // webhookListenIP: reached only through the agent
	webhook     *webhookRelay
	closers     []io.Closer // in-process listeners, closed by Stop

	began    time.Time // of up
	timingMu sync.Mutex
	timings  []stepTiming
}

func (t *tenant) name() string { return t.spec.Name }

// component names a process of this tenant in errors and logs.
func (t *tenant) component(c string) string { return t.spec.Name + "/" + c }

func (t *tenant) logPath(c string) string { return filepath.Join(t.dir, c+".log") }

func (t *tenant) path(f string) string { return filepath.Join(t.dir, f) }

// up brings the tenant up. Each step starts as soon as the steps it needs
// are done (runSteps), so what does not depend on each other runs at once.
func (t *tenant) up(ctx context.Context) error {
	t.began = time.Now()
	steps := []step{
		{name: "certificates", fn: t.writeCertificates},
		{name: "konnectivity server", after: []string{"certificates"}, fn: t.startKonnectivityServer},
		// The agent needs only the konnectivity server.
		{name: "konnectivity agent", after: []string{"konnectivity server"}, fn: t.startAgent},
		{name: "etcd", fn: t.env.waitEtcd},
		// The API server dials the konnectivity socket only when it first
		// sends cluster traffic (egressselector's udsGRPCConnector.connect,
		// k8s.io/apiserver@v0.36.3:pkg/server/egressselector/egress_selector.go),
		// so it need not wait for the konnectivity server.
		{name: "kube-apiserver", after: []string{"certificates", "etcd"}, fn: t.startAPIServer},
		// Not earlier than /readyz for the rest: until then the bootstrap
		// RBAC roles may be missing, and kube-controller-manager exits when
		// it cannot read its config.
		{name: "API server ready", after: []string{"kube-apiserver", "konnectivity server"}, fn: t.waitAPIServer},
		{name: "HAMi scheduler", after: []string{"API server ready"}, fn: t.startHAMi},
		// After HAMi: its configuration names HAMi's port, which is final
		// only once HAMi listens on it (startBound may move it).
		{name: "kube-scheduler", after: []string{"HAMi scheduler"}, fn: t.startScheduler},
		{name: "kube-controller-manager", after: []string{"API server ready"}, fn: t.startControllerManager},
		{name: "KWOK", after: []string{"API server ready"}, fn: t.startKWOK},
		{name: "webhook registration", after: []string{"API server ready"}, fn: t.registerWebhook},
		// After HAMi listens, i.e. after its Start: HAMi drops node adds
		// until then and registers such nodes only at its 15 s tick
		// (TestWorkersRegisterWhenAdded).
		{name: "workers", after: []string{"HAMi scheduler"}, fn: t.createWorkers},
	}
	return t.runSteps(ctx, append(steps, t.readySteps()...))
}

// writeCertificates lays out the tenant's work dir: its ports, its CA and
// every certificate, key and kubeconfig its components read, the admin
// client, the webhook's listener and the egress selector configuration.
func (t *tenant) writeCertificates(context.Context) error {
	if err := os.MkdirAll(t.dir, 0o755); err != nil {
		return err
	}
	if err := t.choosePorts(); err != nil {
		return err
	}
	if err := t.writeCA(); err != nil {
		return err
	}
	if err := t.writeServingCertificates(); err != nil {
		return err
	}
	if err := t.writeServiceAccountKey(); err != nil {
		return err
	}
	if err := t.writeClientKubeconfigs(); err != nil {
		return err
	}
	t.rest = restConfig(t.server, t.ca.certPEM, t.admin)
	var err error
	if t.client, err = kubernetes.NewForConfig(t.rest); err != nil {
		return err
	}
	if t.doubleCert, err = t.issueWebhookCertificate(); err != nil {
		return err
	}
	if err := t.listenWebhook(); err != nil {
		return err
	}
	egress, err := egressSelectorConfig(t.socket)
	if err != nil {
		return err
	}
	return os.WriteFile(t.path("egress-selector.yaml"), []byte(egress), 0o644)
}

// choosePorts proposes the tenant's component ports and sets the API
// server's address and the konnectivity socket from them.
func (t *tenant) choosePorts() error {
	ports, err := t.env.ports.frees(tenantPorts) // first proposals; startBound moves a component whose port was taken
	if err != nil {
		return err
	}
	t.apiPort, t.agentPort, t.konnHealthPort, t.konnAdminPort = ports[0], ports[1], ports[2], ports[3]
	t.agentAdminPort, t.agentHealthPort, t.schedPort, t.kcmPort = ports[4], ports[5], ports[6], ports[7]
	t.hamiPort, t.metricsPort = ports[8], ports[9]
	t.server = fmt.Sprintf("https://127.0.0.1:%d", t.apiPort)
	// Unix socket paths are limited to 108 bytes; the work dir is short by default.
	t.socket = t.path("konnectivity.sock")
	if len(t.socket) > 100 {
		return fmt.Errorf("konnectivity socket path %s is longer than a Unix socket allows: use a shorter Options.WorkDir",
			t.socket)
	}
	return nil
}

// writeCA makes the tenant's own CA and writes ca.crt and ca.key.
func (t *tenant) writeCA() error {
	var err error
	if t.ca, err = newCA(t.name() + "-ca"); err != nil {
		return err
	}
	caKey, err := t.ca.keyPEM()
	if err != nil {
		return err
	}
	if err := os.WriteFile(t.path("ca.crt"), t.ca.certPEM, 0o644); err != nil {
		return err
	}
	return os.WriteFile(t.path("ca.key"), caKey, 0o600)
}

// writeServingCertificates issues and writes the serving certificates of
// the API server, kube-scheduler and kube-controller-manager.
func (t *tenant) writeServingCertificates() error {
	serving, err := t.ca.issue(certSpec{
		CommonName: "kube-apiserver",
		DNSNames: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
			"kubernetes.default.svc.cluster.local"},
		IPs:    []net.IP{net.IPv4(127, 0, 0, 1), net.IPv4(10, 96, 0, 1)},
		Server: true,
		Client: true,
	})
	if err != nil {
		return err
	}
	if _, _, err := writePair(t.dir, "apiserver", serving); err != nil {
		return err
	}
	// kube-scheduler and kube-controller-manager get serving certificates
	// (--tls-cert-file): without one each generates a self-signed RSA-2048
	// CA and certificate at start (MaybeDefaultWithSelfSignedCerts,
	// k8s.io/apiserver@v0.36.3:pkg/server/options/serving.go), a few
	// hundred milliseconds of processor time each; ECDSA here takes a
	// millisecond.
	for _, name := range []string{"scheduler-serving", "controller-manager-serving"} {
		kp, err := t.ca.issue(certSpec{
			CommonName: name, DNSNames: []string{"localhost"}, IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, Server: true,
		})
		if err != nil {
			return err
		}
		if _, _, err := writePair(t.dir, name, kp); err != nil {
			return err
		}
	}
	return nil
}

// writeServiceAccountKey writes sa.pub and sa.key, the key pair the API
// server signs service account tokens with.
func (t *tenant) writeServiceAccountKey() error {
	pub, priv, err := serviceAccountKey()
	if err != nil {
		return err
	}
	if err := os.WriteFile(t.path("sa.pub"), pub, 0o644); err != nil {
		return err
	}
	return os.WriteFile(t.path("sa.key"), priv, 0o600)
}

// writeClientKubeconfigs issues the client certificates of the admin,
// kube-scheduler and kube-controller-manager and writes a kubeconfig for
// each; the admin's are kept for the tenant's own client.
func (t *tenant) writeClientKubeconfigs() error {
	clients := []struct {
		file string
		spec certSpec
	}{
		{"admin", certSpec{CommonName: "kubernetes-admin", Organization: []string{"system:masters"}, Client: true}},
		{"scheduler", certSpec{CommonName: "system:kube-scheduler", Client: true}},
		{"controller-manager", certSpec{CommonName: "system:kube-controller-manager", Client: true}},
	}
	for _, c := range clients {
		kp, err := t.ca.issue(c.spec)
		if err != nil {
			return err
		}
		kc, err := kubeconfig(t.name(), t.server, t.ca.certPEM, kp)
		if err != nil {
			return err
		}
		if err := os.WriteFile(t.path(c.file+".kubeconfig"), kc, 0o600); err != nil {
			return err
		}
		if c.file == "admin" {
			t.admin, t.kubeconfig = kp, kc
		}
	}
	return nil
}

// issueWebhookCertificate issues HAMi's serving certificate (--cert_file)
// for its webhook Service's names and the addresses it listens on.
func (t *tenant) issueWebhookCertificate() (keyPair, error) {
	return t.ca.issue(certSpec{
		CommonName: webhookService + "." + webhookNamespace + ".svc",
		DNSNames:   []string{webhookService + "." + webhookNamespace + ".svc", webhookService + "." + webhookNamespace},
		IPs:        []net.IP{net.IPv4(127, 0, 0, 1), net.ParseIP(webhookListenIP)},
		Server:     true,
	})
}

// healthz GETs https://127.0.0.1:<port>/healthz of a component serving a
// self-signed certificate.
func healthz(ctx context.Context, port int) (bool, error) {
	hc := &http.Client{Timeout: time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d/healthz", port), nil)
	resp, err := hc.Do(req)
	if err != nil {
		return false, err
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK, nil
}

// processes lists the tenant's processes that listen on their ports, in
// start order. It reads the environment's list, not the tenant's fields,
// which steps running at the same time are still setting; and it leaves out
// a process still binding, which may exit on a lost port and be replaced
// (startBound) while a readiness check watches the others.
func (t *tenant) processes() []*process {
	t.env.mu.Lock()
	defer t.env.mu.Unlock()
	var out []*process
	for _, p := range t.env.procs {
		if strings.HasPrefix(p.name, t.name()+"/") && p.isBound() {
			out = append(out, p)
		}
	}
	return out
}
