package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/render"
	"github.com/gpu-lab/gpu-lab/ci/testenv/hamidouble"
)

// hamiPlace is where the tenant's HAMi scheduler runs here: its listeners on
// loopback, its files in the tenant's directory. Everything else in its
// configuration is the real lab's (render.HAMiExtenderArgs,
// render.HAMiExtenderEnv, render.HAMiSchedulerConfig). Its own kubeconfig
// is not part of the place: the chart's pod uses its ServiceAccount
// in-cluster, a process here gets the tenant's admin kubeconfig through
// KUBECONFIG, where HAMi's scheduler looks first (startHAMi).
func (t *tenant) hamiPlace() render.HAMiPlace {
	return render.HAMiPlace{
		HTTPBind:         fmt.Sprintf("127.0.0.1:%d", t.hamiPort),
		CertFile:         t.path("hami.crt"),
		KeyFile:          t.path("hami.key"),
		MetricsBind:      fmt.Sprintf("127.0.0.1:%d", t.metricsPort),
		DeviceConfigFile: t.path("hami-device-config.yaml"),
		ExtenderURL:      fmt.Sprintf("https://127.0.0.1:%d", t.hamiPort),
		Kubeconfig:       t.path("scheduler.kubeconfig"),
		PodName:          gpus.SchedulerName + "-" + t.name(),
		DefaultProfile:   true,
	}
}

// startHAMi starts the tenant's HAMi scheduler as its own process, the
// protocol double or a real binary alike, with exactly the command line,
// environment, certificate and device config the lab's chart values give
// HAMi's extender container (rendered for this place), and waits for it the
// way the chart's pod is waited for: listening, then /healthz. The webhook
// relay then forwards the API server's calls to it. Whether HAMi has
// registered every card is the last readiness check (waitReady).
func (t *tenant) startHAMi(ctx context.Context) error {
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
	args, err := hamiArgs(t.env, p)
	if err != nil {
		return err
	}
	env := append(render.HAMiExtenderEnv(p), "KUBECONFIG="+t.path("admin.kubeconfig"))
	h := t.env.hami
	var token string
	if h.double {
		tokenFile := t.path("double-admin.token")
		if token, err = writeAdminToken(tokenFile); err != nil {
			return err
		}
		env = append(env, hamidouble.AdminTokenFileEnv+"="+tokenFile)
	}
	t.hami, err = t.env.startBound(ctx, t.component("hami-scheduler"), h.bin, args,
		t.logPath("hami-scheduler"), []*int{&t.hamiPort, &t.metricsPort}, nil, env...)
	if err != nil {
		return fmt.Errorf("%s: %w", h.name, err)
	}
	if err := waitFor(ctx, h.name+" /healthz", 100*time.Millisecond, []*process{t.hami}, func(ctx context.Context) (bool, error) {
		return healthz(ctx, t.hamiPort)
	}); err != nil {
		return err
	}
	t.serveWebhook()
	t.double = &hamidouble.Remote{URL: fmt.Sprintf("http://127.0.0.1:%d", t.metricsPort), Token: token}
	if !h.double {
		t.double = &hamidouble.Remote{Err: fmt.Errorf("tenant %s runs %s, not the protocol double: it has no faults or counters",
			t.name(), h.name)}
		return nil
	}
	// Before KWOK and the workers exist, so no registration pass has run.
	if t.env.doubleFaults != (hamidouble.Faults{}) {
		return t.double.SetFaults(t.env.doubleFaults)
	}
	return nil
}

// hamiArgs is the chosen HAMi binary's arguments for a place: its own (the
// double's subcommand), the extender arguments the lab's chart values
// render, then the tests' extra ones. startHAMi and checkHAMiCommandLine
// run the same.
func hamiArgs(e *Env, p render.HAMiPlace) ([]string, error) {
	rendered, err := render.HAMiExtenderArgs(e.lab, p)
	if err != nil {
		return nil, err
	}
	args := append(append([]string(nil), e.hami.args...), rendered...)
	return append(args, e.extraHAMiArgs...), nil
}

// hamiSeesCards is the readiness gate the real lab's gpus stage uses too:
// HAMi's /metrics lists every card of the tenant's workers
// (gpus.SeesAllCards); here it is scraped from HAMi's metrics listener
// instead of through the API server's service proxy.
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
		return false, fmt.Errorf("scrape HAMi's metrics: %w", err)
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

// writeAdminToken makes the double's admin token (its admin routes check it)
// and writes it to path as a new 0600 file (one left by an earlier run in
// the same work dir is removed first, never written through): the double's
// metrics listener, where its admin routes are, answers any local user,
// so only who can read the tenant's files may set faults.
func writeAdminToken(path string) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	token := hex.EncodeToString(b)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("remove the old admin token %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("the double's admin token: %w (only this environment writes the tenant directory)", err)
	}
	if _, err := f.WriteString(token); err != nil {
		f.Close()
		return "", fmt.Errorf("write the double's admin token %s: %w", path, err)
	}
	return token, f.Close()
}
