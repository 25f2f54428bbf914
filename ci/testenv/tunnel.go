package testenv

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Tunnel shows which path a tenant's webhook calls took. HAMi's webhook is
// reached at a loopback address that only the webhook's ExternalName
// Service names (its relay forwards to HAMi's --http_bind), and the API
// server sends Service traffic through konnectivity. The API server keeps
// its webhook connection open, so one dial carries many calls: the evidence
// is that every connection the relay accepted was dialled by the agent
// (WebhookConnections ≤ AgentDials and ≤ ServerDials; a direct dial from the
// API server would make it exceed them), and that WebhookBytes grows with
// each call. The counters are the relay's and konnectivity's, so they hold
// whichever HAMi scheduler runs.
type Tunnel struct {
	// WebhookAddress is the relay's agent-side listener (host:port).
	WebhookAddress string
	// WebhookBytes counts the bytes (TLS, so requests cannot be told
	// apart) the dialling side sent through the relay to HAMi.
	WebhookBytes int64
	// WebhookConnections counts connections the relay accepted.
	WebhookConnections int64
	// ServerDials counts dials the konnectivity server forwarded to its agent
	// (konnectivity_network_proxy_server_dial_duration_seconds_count).
	ServerDials int64
	// AgentDials counts connections the konnectivity agent opened to a
	// destination (konnectivity_network_proxy_agent_dial_duration_seconds_count).
	AgentDials int64
}

// throughAgent reports whether every connection that reached the webhook
// listener can have come from the konnectivity agent, and at least one did.
func (t Tunnel) throughAgent() bool {
	return t.WebhookConnections >= 1 && t.WebhookConnections <= t.AgentDials && t.WebhookConnections <= t.ServerDials
}

// Tunnel reads the tenant's tunnel counters.
func (e *Env) Tunnel(ctx context.Context, tenantName string) (Tunnel, error) {
	t := e.tenant(tenantName)
	out := Tunnel{WebhookAddress: t.webhookAddr.String(), WebhookBytes: t.webhook.bytes.Load(),
		WebhookConnections: t.webhook.conns.Load()}
	var err error
	if out.ServerDials, err = metricSum(ctx, t.konnAdminPort, "konnectivity_network_proxy_server_dial_duration_seconds_count"); err != nil {
		return out, fmt.Errorf("tenant %s: konnectivity server metrics: %w", tenantName, err)
	}
	if out.AgentDials, err = metricSum(ctx, t.agentAdminPort, "konnectivity_network_proxy_agent_dial_duration_seconds_count"); err != nil {
		return out, fmt.Errorf("tenant %s: konnectivity agent metrics: %w", tenantName, err)
	}
	return out, nil
}

// metricSum adds every sample of a metric on http://127.0.0.1:<port>/metrics
// (0 when the metric has no samples yet).
func metricSum(ctx context.Context, port int, name string) (int64, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/metrics", port), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name) {
			continue
		}
		rest := line[len(name):]
		if rest == "" || (rest[0] != ' ' && rest[0] != '{') {
			continue // a longer metric name
		}
		fields := strings.Fields(rest[strings.LastIndex(rest, "}")+1:])
		if len(fields) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return 0, fmt.Errorf("metric %s: %q: %w", name, line, err)
		}
		sum += v
	}
	return int64(sum), sc.Err()
}

// breakTunnel kills the tenant's konnectivity agent, as if the worker side
// of the tunnel were lost: the API server can no longer reach HAMi's
// webhook, and with HAMi's failurePolicy Ignore, GPU pods are admitted
// unmutated. It exists so a suite case about the tunnel can be shown to fail.
func (e *Env) breakTunnel(tenantName string) error {
	t := e.tenant(tenantName)
	if t.agent == nil {
		return fmt.Errorf("tenant %s: no konnectivity agent was started", tenantName)
	}
	return t.agent.stop(0)
}
