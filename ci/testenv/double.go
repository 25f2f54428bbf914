package testenv

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"k8s.io/client-go/rest"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/render"
	"github.com/gpu-lab/gpu-lab/ci/testenv/hamidouble"
)

// hamiPlace is where the tenant's HAMi scheduler runs here: its listeners on
// loopback, its files in the tenant's directory. Everything else in its
// configuration is the real lab's (render.HAMiExtenderArgs,
// render.HAMiSchedulerConfig).
func (t *tenant) hamiPlace() render.HAMiPlace {
	return render.HAMiPlace{
		HTTPBind:         fmt.Sprintf("127.0.0.1:%d", t.extenderPort),
		CertFile:         t.path("hami.crt"),
		KeyFile:          t.path("hami.key"),
		MetricsBind:      fmt.Sprintf("127.0.0.1:%d", t.metricsPort),
		DeviceConfigFile: t.path("hami-device-config.yaml"),
		ExtenderURL:      fmt.Sprintf("https://127.0.0.1:%d", t.extenderPort),
		Kubeconfig:       t.path("scheduler.kubeconfig"),
		DefaultProfile:   true,
	}
}

// startDouble starts the tenant's HAMi protocol double, configured from the
// extender command line the real lab's chart runs HAMi with (rendered for
// this place), and its listeners. The double is test infrastructure standing
// in for HAMi's scheduler extender and webhook; it is never presented as
// HAMi (see DoubleNotice).
func (t *tenant) startDouble(ctx context.Context) error {
	p := t.hamiPlace()
	if err := os.WriteFile(p.CertFile, t.doubleCert.CertPEM, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(p.KeyFile, t.doubleCert.KeyPEM, 0o600); err != nil {
		return err
	}
	dev, err := render.HAMiDeviceConfigYAML(t.env.lab)
	if err != nil {
		return err
	}
	if err := os.WriteFile(p.DeviceConfigFile, dev, 0o644); err != nil {
		return err
	}
	args, err := render.HAMiExtenderArgs(t.env.lab, p)
	if err != nil {
		return err
	}
	cfg, err := hamidouble.ConfigFromArgs(args)
	if err != nil {
		return fmt.Errorf("HAMi double with the lab's extender arguments: %w", err)
	}
	cfg.Rest = rest.CopyConfig(t.rest)
	cfg.Log = t.env.log.With("tenant", t.name())
	if t.env.doubleConfig != nil {
		t.env.doubleConfig(&cfg)
	}
	t.double = hamidouble.New(cfg)
	if t.env.doubleFaults != (hamidouble.Faults{}) {
		t.double.SetFaults(t.env.doubleFaults)
	}
	if err := t.double.Start(t.env.ctx); err != nil {
		return err
	}
	return t.serveDouble(t.env.ctx)
}

// hamiSeesCards is the readiness gate the real lab's gpus stage uses too:
// HAMi's /metrics lists every card of the tenant's workers
// (gpus.SeesAllCards); here it is scraped from the double's metrics
// listener instead of through the API server's service proxy.
func (t *tenant) hamiSeesCards(ctx context.Context) (bool, error) {
	var want []string
	for _, w := range t.spec.Workers {
		for _, d := range gpus.Devices(t.env.lab, t.name(), w) {
			want = append(want, d.ID)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/metrics", t.metricsPort), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, fmt.Errorf("scrape the HAMi double's metrics: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return false, err
	}
	if ok, cond := gpus.SeesAllCards(body, want); !ok {
		return false, fmt.Errorf("%s", cond)
	}
	return true, nil
}
