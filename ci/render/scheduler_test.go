package render

import (
	"strings"
	"testing"

	schedv1 "k8s.io/kube-scheduler/config/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// The scheduler config decodes strictly into kube-scheduler's own v1 types,
// so a misspelt field fails here rather than in a booting scheduler, and it
// carries the lab's backoff in both places.
func TestHAMiSchedulerConfigDecodesStrictly(t *testing.T) {
	l := testLabs(t)["default"]
	slow := *l
	slow.HAMi.PodInitialBackoffSeconds, slow.HAMi.PodMaxBackoffSeconds = 2, 10
	local := HAMiPlace{ExtenderURL: "https://127.0.0.1:1", Kubeconfig: "/k", DefaultProfile: true}
	for _, tc := range []struct {
		name         string
		lab          *lab.Lab
		place        HAMiPlace
		initial, max int64
		profiles     []string
		kubeconfig   string
	}{
		{"chart place, lab defaults", l, ChartPlace(), 1, 1, []string{"hami-scheduler"}, ""},
		{"local place, lab defaults", l, local, 1, 1, []string{"default-scheduler", "hami-scheduler"}, "/k"},
		{"chart place, slower backoff", &slow, ChartPlace(), 2, 10, []string{"hami-scheduler"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := HAMiSchedulerConfig(tc.lab, tc.place)
			if err != nil {
				t.Fatal(err)
			}
			var cfg schedv1.KubeSchedulerConfiguration
			if err := yaml.UnmarshalStrict(raw, &cfg); err != nil {
				t.Fatalf("decode: %v\n%s", err, raw)
			}
			if cfg.PodInitialBackoffSeconds == nil || *cfg.PodInitialBackoffSeconds != tc.initial ||
				cfg.PodMaxBackoffSeconds == nil || *cfg.PodMaxBackoffSeconds != tc.max {
				t.Errorf("backoff = %v/%v, want %d/%d", cfg.PodInitialBackoffSeconds, cfg.PodMaxBackoffSeconds, tc.initial, tc.max)
			}
			var profiles []string
			for _, p := range cfg.Profiles {
				profiles = append(profiles, *p.SchedulerName)
			}
			if strings.Join(profiles, ",") != strings.Join(tc.profiles, ",") {
				t.Errorf("profiles = %v, want %v", profiles, tc.profiles)
			}
			if cfg.ClientConnection.Kubeconfig != tc.kubeconfig {
				t.Errorf("kubeconfig = %q, want %q", cfg.ClientConnection.Kubeconfig, tc.kubeconfig)
			}
			if len(cfg.Extenders) != 1 || cfg.Extenders[0].URLPrefix != tc.place.ExtenderURL || cfg.Extenders[0].BindVerb != "bind" {
				t.Errorf("extender = %+v", cfg.Extenders)
			}
			if cfg.LeaderElection.LeaderElect == nil || *cfg.LeaderElection.LeaderElect {
				t.Error("leader election must be off")
			}
		})
	}
	if _, err := HAMiSchedulerConfig(l, HAMiPlace{}); err == nil || !strings.Contains(err.Error(), "extender URL") {
		t.Errorf("empty place: err = %v, want an extender URL error", err)
	}
}

func TestEgressSelectorDecodesStrictly(t *testing.T) {
	raw, err := EgressSelector("/run/k.sock")
	if err != nil {
		t.Fatal(err)
	}
	var cfg egressSelectorConfiguration
	if err := yaml.UnmarshalStrict(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Kind != "EgressSelectorConfiguration" || len(cfg.EgressSelections) != 1 ||
		cfg.EgressSelections[0].Name != "cluster" || cfg.EgressSelections[0].Connection.Transport.UDS.UDSName != "/run/k.sock" {
		t.Errorf("egress selector = %s", raw)
	}
	if _, err := EgressSelector(""); err == nil {
		t.Error("empty socket path accepted")
	}
}
