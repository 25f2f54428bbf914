package testenv

import (
	"context"
	"fmt"
	"net"
	"strconv"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// Names of HAMi's webhook objects, as HAMi's chart creates them (chart 2.10.0
// templates/scheduler/webhook.yaml:9,25 and service.yaml:4, rendered in
// ci/render/testdata/hami-chart-2.10.0/).
const (
	webhookService   = "hami-scheduler"
	webhookNamespace = "kube-system"
	webhookConfig    = "hami-webhook"
	webhookPath      = "/webhook"
	webhookPortName  = "https"
	// webhookListenIP is where HAMi's webhook is reached. It is a loopback
	// address that nothing but the webhook's ExternalName Service names
	// (HAMi listens on 127.0.0.1), so every connection to it was dialled on
	// the Service's behalf: by the konnectivity agent.
	webhookListenIP = "127.0.0.2"
)

// listenWebhook opens the webhook's address early (before the API server
// starts): webhookListenIP, which only the webhook's ExternalName Service
// names, so the API server's webhook calls reach it from the konnectivity
// agent. Its relay forwards them to HAMi's --http_bind (see webhookRelay).
func (t *tenant) listenWebhook() error {
	ln, err := net.Listen("tcp", net.JoinHostPort(webhookListenIP, "0"))
	if err != nil {
		return fmt.Errorf("HAMi webhook listener on %s: %w", webhookListenIP, err)
	}
	t.webhook = newWebhookRelay(ln)
	t.closers = append(t.closers, t.webhook)
	t.webhookAddr = ln.Addr().(*net.TCPAddr)
	return nil
}

// serveWebhook starts relaying webhook calls to HAMi's --http_bind port.
func (t *tenant) serveWebhook() {
	t.webhook.target = net.JoinHostPort("127.0.0.1", strconv.Itoa(t.hamiPort))
	t.env.wg.Go(func() {
		t.webhook.serve(func(msg string, args ...any) { t.env.log.Warn(msg, append(args, "tenant", t.name())...) })
	})
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
	if _, err := c.CoreV1().Services(webhookNamespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil &&
		!apierrors.IsAlreadyExists(err) {
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
			Name: gpus.WebhookName,
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
	if _, err := c.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, mwc, metav1.CreateOptions{}); err != nil &&
		!apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("mutatingwebhookconfiguration %s: %w", webhookConfig, err)
	}
	return nil
}

// webhookURL is where the konnectivity agent dials HAMi's webhook.
func (t *tenant) webhookURL() string {
	return "https://" + net.JoinHostPort(t.webhookAddr.IP.String(), strconv.Itoa(t.webhookAddr.Port)) + webhookPath
}
