package hostdaemon

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// Every path dockerd and containerd are given lies in the state directory,
// and the wrapper is the default runtime.
func TestConfigsKeepEverythingInTheStateDir(t *testing.T) {
	l := Layout{Dir: "/state"}
	b, err := daemonJSON(l, "overlay2", "/state/bin/runc-capfilter", "gpu-lab-rehearsal")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		DataRoot       string   `json:"data-root"`
		ExecRoot       string   `json:"exec-root"`
		Pidfile        string   `json:"pidfile"`
		Hosts          []string `json:"hosts"`
		Containerd     string   `json:"containerd"`
		StorageDriver  string   `json:"storage-driver"`
		DefaultRuntime string   `json:"default-runtime"`
		CgroupParent   string   `json:"cgroup-parent"`
		Runtimes       map[string]struct {
			Path string `json:"path"`
		} `json:"runtimes"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{cfg.DataRoot, cfg.ExecRoot, cfg.Pidfile, cfg.Containerd, strings.TrimPrefix(cfg.Hosts[0], "unix://")} {
		if !strings.HasPrefix(p, "/state/") {
			t.Errorf("daemon.json path %q is outside the state directory", p)
		}
	}
	if len(cfg.Hosts) != 1 || !strings.HasPrefix(cfg.Hosts[0], "unix://") {
		t.Errorf("hosts = %v, want one unix socket (no TCP listener)", cfg.Hosts)
	}
	if cfg.Runtimes[cfg.DefaultRuntime].Path != "/state/bin/runc-capfilter" {
		t.Errorf("default runtime %q is %+v, want the wrapper", cfg.DefaultRuntime, cfg.Runtimes)
	}
	if cfg.StorageDriver != "overlay2" || cfg.CgroupParent != "/gpu-lab-rehearsal" {
		t.Errorf("storage-driver %q, cgroup-parent %q", cfg.StorageDriver, cfg.CgroupParent)
	}

	toml := string(containerdTOML(l))
	for _, line := range strings.Split(toml, "\n") {
		k, v, ok := strings.Cut(line, " = ")
		if !ok || !strings.HasPrefix(v, `"/`) {
			continue
		}
		if p := strings.Trim(v, `"`); filepath.Dir(p) != "/state" && !strings.HasPrefix(p, "/state/") {
			t.Errorf("containerd.toml %s = %s is outside the state directory", strings.TrimSpace(k), v)
		}
	}
	for _, want := range []string{"root = ", "state = ", "  address = ", `[plugins."io.containerd.internal.v1.opt"]`} {
		if !strings.Contains(toml, want) {
			t.Errorf("containerd.toml lacks %q: containerd would use its default path", want)
		}
	}
}

func TestDriverForMagic(t *testing.T) {
	for _, tc := range []struct {
		name  string
		magic int64
		ok    bool
	}{
		{"ext4", ext4Magic, true},
		{"xfs", xfsMagic, true},
		{"overlayfs", overlayMagic, false},
		{"unknown", 0x6969, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := driverForMagic(tc.magic, "/state/data-root")
			if (err == nil) != tc.ok || (tc.ok && d != "overlay2") {
				t.Fatalf("driverForMagic(%#x) = %q, %v", tc.magic, d, err)
			}
			if err != nil && !strings.Contains(err.Error(), "/state/data-root") {
				t.Fatalf("error does not name the data root: %v", err)
			}
		})
	}
}
