package render

import (
	"strings"
	"testing"
	"time"

	schedv1 "k8s.io/kube-scheduler/config/v1"
	"sigs.k8s.io/yaml"
)

// The scheduler config decodes strictly into kube-scheduler's own v1 types,
// so a misspelt field fails here rather than in a booting scheduler.
func TestHAMiSchedulerConfigDecodesStrictly(t *testing.T) {
	for _, tc := range []struct {
		name    string
		backoff time.Duration
		want    *int64
	}{
		{"default backoff", 0, nil},
		{"one second", time.Second, ptr(int64(1))},
		{"sub-second rounds up", 200 * time.Millisecond, ptr(int64(1))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := HAMiSchedulerConfig(SchedulerOptions{Kubeconfig: "/k", ExtenderURL: "https://127.0.0.1:1", MaxBackoff: tc.backoff})
			if err != nil {
				t.Fatal(err)
			}
			var cfg schedv1.KubeSchedulerConfiguration
			if err := yaml.UnmarshalStrict(raw, &cfg); err != nil {
				t.Fatalf("decode: %v\n%s", err, raw)
			}
			if got := cfg.PodMaxBackoffSeconds; (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
				t.Errorf("podMaxBackoffSeconds = %v, want %v", got, tc.want)
			}
			if len(cfg.Extenders) != 1 || cfg.Extenders[0].BindVerb != "bind" || cfg.Extenders[0].FilterVerb != "filter" || !cfg.Extenders[0].NodeCacheCapable {
				t.Errorf("extender = %+v", cfg.Extenders)
			}
			if cfg.LeaderElection.LeaderElect == nil || *cfg.LeaderElection.LeaderElect {
				t.Error("leader election must be off")
			}
		})
	}
	if _, err := HAMiSchedulerConfig(SchedulerOptions{}); err == nil || !strings.Contains(err.Error(), "required") {
		t.Errorf("empty options: err = %v, want a required-field error", err)
	}
}

func TestEgressSelectorDecodesStrictly(t *testing.T) {
	raw, err := EgressSelector("/run/k.sock")
	if err != nil {
		t.Fatal(err)
	}
	var cfg EgressSelectorConfiguration
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
