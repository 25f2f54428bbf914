package testenv

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// Names of HAMi's webhook objects, as HAMi's chart creates them (hami.md §1.2).
const (
	webhookService   = "hami-scheduler"
	webhookNamespace = "kube-system"
	webhookConfig    = "hami-webhook"
	webhookName      = "vgpu.hami.io"
	webhookPath      = "/webhook"
	webhookPortName  = "https"
	// webhookListenIP is where the double's webhook listens. It is a loopback
	// address that nothing but the webhook's ExternalName Service names
	// (the extender listens on 127.0.0.1), so every connection to it was
	// dialled on the Service's behalf: by the konnectivity agent.
	webhookListenIP = "127.0.0.2"
)

// hitCounter counts the requests that reach one of the double's listeners.
type hitCounter struct {
	next  http.Handler
	total atomic.Int64
	conns atomic.Int64 // connections accepted
	mu    sync.Mutex
	paths map[string]int64
}

func newHitCounter(next http.Handler) *hitCounter {
	return &hitCounter{next: next, paths: map[string]int64{}}
}

func (h *hitCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.total.Add(1)
	h.mu.Lock()
	h.paths[r.URL.Path]++
	h.mu.Unlock()
	h.next.ServeHTTP(w, r)
}

func (h *hitCounter) path(p string) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.paths[p]
}

// listenDouble opens the double's listeners early, so kube-scheduler's
// configuration can name the extender port before the double starts:
// 127.0.0.1 for kube-scheduler's extender calls (HAMi's chart also has the
// scheduler call its extender on loopback, inside one pod), and
// webhookListenIP for the API server's webhook calls, which arrive from the
// konnectivity agent: only the ExternalName Service names that address.
func (t *tenant) listenDouble() error {
	extender, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("HAMi double extender listener: %w", err)
	}
	webhook, err := net.Listen("tcp", net.JoinHostPort(webhookListenIP, "0"))
	if err != nil {
		extender.Close()
		return fmt.Errorf("HAMi double webhook listener on %s: %w", webhookListenIP, err)
	}
	metrics, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		extender.Close()
		webhook.Close()
		return fmt.Errorf("HAMi double metrics listener: %w", err)
	}
	t.extenderListener, t.webhookListener, t.metricsListener = extender, webhook, metrics
	t.extenderPort = extender.Addr().(*net.TCPAddr).Port
	t.metricsPort = metrics.Addr().(*net.TCPAddr).Port
	t.webhookAddr = webhook.Addr().(*net.TCPAddr)
	return nil
}

// serveDouble serves the double's handler over TLS on both listeners.
func (t *tenant) serveDouble(ctx context.Context) error {
	cert, err := tls.X509KeyPair(t.doubleCert.CertPEM, t.doubleCert.KeyPEM)
	if err != nil {
		return fmt.Errorf("HAMi double certificate: %w", err)
	}
	tlsCfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	extender, webhook := t.extenderListener, t.webhookListener
	handler := t.double.Handler()
	t.webhookHits = newHitCounter(handler)
	for _, s := range []struct {
		l net.Listener
		h http.Handler
	}{{extender, handler}, {webhook, t.webhookHits}} {
		srv := &http.Server{Handler: s.h, TLSConfig: tlsCfg, ReadHeaderTimeout: 10 * time.Second,
			BaseContext: func(net.Listener) context.Context { return ctx }}
		if s.h == t.webhookHits {
			srv.ConnState = func(_ net.Conn, st http.ConnState) {
				if st == http.StateNew {
					t.webhookHits.conns.Add(1)
				}
			}
		}
		t.servers = append(t.servers, srv)
		l := tls.NewListener(s.l, tlsCfg)
		t.env.wg.Go(func() {
			if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
				t.env.log.Warn("HAMi double server stopped", "tenant", t.name(), "err", err)
			}
		})
	}
	// HAMi serves /metrics in plain HTTP on its own address.
	metrics := &http.Server{Handler: t.double.MetricsHandler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	t.servers = append(t.servers, metrics)
	t.env.wg.Go(func() {
		if err := metrics.Serve(t.metricsListener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.env.log.Warn("HAMi double metrics server stopped", "tenant", t.name(), "err", err)
		}
	})
	return nil
}

// registerWebhook creates HAMi's webhook the way its chart does: a
// MutatingWebhookConfiguration referring to Service kube-system/hami-scheduler.
//
// Here the Service is of type ExternalName naming the double's agent-side
// listener (a loopback address): the API server resolves a Service-referenced
// webhook to the Service's cluster IP, or for ExternalName to that name, and
// sends the call over its `cluster` egress, i.e. through konnectivity; the
// agent then dials the name. A ClusterIP would need kube-proxy (there is
// none), and an EndpointSlice may not hold a loopback address. The webhook's
// service port is the listener's port, since the resolver dials
// <externalName>:<webhook service port>.
func (t *tenant) registerWebhook(ctx context.Context) error {
	c := t.client
	port := int32(t.webhookAddr.Port)
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: webhookService, Namespace: webhookNamespace},
		Spec: corev1.ServiceSpec{
			Type:         corev1.ServiceTypeExternalName,
			ExternalName: webhookListenIP,
			Ports: []corev1.ServicePort{{
				Name: webhookPortName, Port: port, Protocol: corev1.ProtocolTCP,
			}},
		},
	}
	if _, err := c.CoreV1().Services(webhookNamespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("service %s/%s: %w", webhookNamespace, webhookService, err)
	}
	path := webhookPath
	svcPort := port
	failure := admissionregistrationv1.Ignore
	sideEffects := admissionregistrationv1.SideEffectClassNone
	reinvoke := admissionregistrationv1.NeverReinvocationPolicy
	timeout := int32(10)
	scope := admissionregistrationv1.AllScopes
	notIgnored := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: gpus.LabelWebhookIgnore, Operator: metav1.LabelSelectorOpNotIn, Values: []string{gpus.WebhookIgnoreValue},
	}}}
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: webhookConfig},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: webhookName,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service:  &admissionregistrationv1.ServiceReference{Namespace: webhookNamespace, Name: webhookService, Path: &path, Port: &svcPort},
				CABundle: t.ca.certPEM,
			},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{
					APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}, Scope: &scope,
				},
			}},
			FailurePolicy:           &failure,
			SideEffects:             &sideEffects,
			ReinvocationPolicy:      &reinvoke,
			TimeoutSeconds:          &timeout,
			AdmissionReviewVersions: []string{"v1beta1"},
			NamespaceSelector:       notIgnored,
			ObjectSelector:          notIgnored,
		}},
	}
	if _, err := c.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, mwc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("mutatingwebhookconfiguration %s: %w", webhookConfig, err)
	}
	return nil
}

// webhookURL is where the konnectivity agent dials the double.
func (t *tenant) webhookURL() string {
	return "https://" + net.JoinHostPort(t.webhookAddr.IP.String(), strconv.Itoa(t.webhookAddr.Port)) + webhookPath
}
