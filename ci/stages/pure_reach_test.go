package stages

import (
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/internal/kubeconfig/kubeconfigtest"
)

func TestReachFor(t *testing.T) {
	tests := []struct {
		in      string
		want    Reach
		wantErr bool
	}{
		{"", Reach{}, false},
		{"unix:///var/run/docker.sock", Reach{}, false},
		{"tcp://docker:2375", Reach{Host: "docker"}, false},
		{"tcp://10.0.0.5:2376", Reach{Host: "10.0.0.5", Bind: "10.0.0.5"}, false},
		{"ssh://me@build-box", Reach{Host: "build-box"}, false},
		{"ssh://me@192.168.7.20:2222", Reach{Host: "192.168.7.20", Bind: "192.168.7.20"}, false},
		// IPv6: the management cluster is IPv4 only; kept on every address.
		{"tcp://[fd00::5]:2376", Reach{Host: "fd00::5"}, false},
		{"http://docker:2375", Reach{}, true},
		{"tcp://", Reach{}, true},
	}
	for _, tt := range tests {
		got, err := ReachFor(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ReachFor(%q) = %+v, %v; want %+v, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestReachRenderOptionsAndServers(t *testing.T) {
	local, remote := Reach{}, Reach{Host: "docker"}
	lo := local.renderOptions("172.18.0.2")
	if lo.APIServerAddress != "" || lo.APIServerPort != 0 || lo.PublishNodePorts || len(lo.CertSANs) != 0 ||
		lo.ManagementAddress != "172.18.0.2" {
		t.Errorf("local options = %+v", lo)
	}
	ro := remote.renderOptions("172.18.0.2")
	if ro.APIServerAddress != "0.0.0.0" || ro.APIServerPort != managementAPIPort || !ro.PublishNodePorts ||
		!reflect.DeepEqual(ro.CertSANs, []string{"docker"}) {
		t.Errorf("remote options = %+v", ro)
	}
	// Named by address: published on that address of the host only.
	byIP := Reach{Host: "10.0.0.5", Bind: "10.0.0.5"}
	if o := byIP.renderOptions("172.18.0.2"); o.APIServerAddress != "10.0.0.5" || !o.PublishNodePorts ||
		!reflect.DeepEqual(o.CertSANs, []string{"10.0.0.5"}) {
		t.Errorf("remote options for a daemon named by address = %+v", o)
	}
	if got, err := byIP.managementServer("https://10.0.0.5:6443"); err != nil || got != "https://10.0.0.5:6443" {
		t.Errorf("ManagementServer for a daemon named by address = %q, %v", got, err)
	}
	tests := []struct {
		r          Reach
		kindServer string
		want       string
		wantErr    bool
	}{
		{local, "https://127.0.0.1:39211", "https://127.0.0.1:39211", false},
		{remote, "https://0.0.0.0:6443", "https://docker:6443", false},
		{remote, "https://0.0.0.0", "", true},
	}
	for _, tt := range tests {
		got, err := tt.r.managementServer(tt.kindServer)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("%+v.ManagementServer(%q) = %q, %v; want %q", tt.r, tt.kindServer, got, err, tt.want)
		}
	}
	if got := local.tenantServer("172.18.0.2", 31443); got != "https://172.18.0.2:31443" {
		t.Errorf("local TenantServer = %s", got)
	}
	if got := remote.tenantServer("172.18.0.2", 32443); got != "https://docker:32443" {
		t.Errorf("remote TenantServer = %s", got)
	}
}

var kubeconfigFor = kubeconfigtest.Write

func TestKindLoggerLevels(t *testing.T) {
	var b strings.Builder
	debug := kindLogger{slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	debug.V(0).Info(" ✓ Ensuring node image 🖼\n")
	debug.V(3).Infof("trace %d", 3)
	debug.Warnf("warn %s", "x")
	out := b.String()
	if !strings.Contains(out, "Ensuring node image") || strings.Contains(out, "trace 3") || !strings.Contains(out, "warn x") {
		t.Errorf("debug logger output:\n%s", out)
	}
	b.Reset()
	quiet := kindLogger{slog.New(slog.NewTextHandler(&b, nil))}
	if quiet.V(0).Enabled() {
		t.Error("kind status lines must be off without -v")
	}
	quiet.V(0).Info("Ensuring node image")
	if b.Len() != 0 {
		t.Errorf("quiet logger wrote %q", b.String())
	}
}
