package testenv

import (
	"testing"

	"sigs.k8s.io/yaml"
)

// The scheduler configuration carries HAMi chart's extender exactly
// (hami.md §1.1) plus both profiles, with leader election off.
func TestSchedulerConfigMatchesHAMiChart(t *testing.T) {
	var cfg struct {
		APIVersion     string `json:"apiVersion"`
		Kind           string `json:"kind"`
		LeaderElection struct {
			LeaderElect *bool `json:"leaderElect"`
		} `json:"leaderElection"`
		Profiles []struct {
			SchedulerName string `json:"schedulerName"`
		} `json:"profiles"`
		Extenders []struct {
			URLPrefix        string           `json:"urlPrefix"`
			EnableHTTPS      bool             `json:"enableHTTPS"`
			TLSConfig        map[string]any   `json:"tlsConfig"`
			FilterVerb       string           `json:"filterVerb"`
			BindVerb         string           `json:"bindVerb"`
			NodeCacheCapable bool             `json:"nodeCacheCapable"`
			Weight           int              `json:"weight"`
			HTTPTimeout      string           `json:"httpTimeout"`
			ManagedResources []map[string]any `json:"managedResources"`
		} `json:"extenders"`
	}
	raw, err := schedulerConfig("/k/sched.kubeconfig", 4711)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(raw), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.APIVersion != "kubescheduler.config.k8s.io/v1" || cfg.Kind != "KubeSchedulerConfiguration" {
		t.Errorf("apiVersion/kind = %s/%s", cfg.APIVersion, cfg.Kind)
	}
	if cfg.LeaderElection.LeaderElect == nil || *cfg.LeaderElection.LeaderElect {
		t.Error("leader election must be off")
	}
	if len(cfg.Profiles) != 2 || cfg.Profiles[0].SchedulerName != "default-scheduler" || cfg.Profiles[1].SchedulerName != "hami-scheduler" {
		t.Errorf("profiles = %+v", cfg.Profiles)
	}
	if len(cfg.Extenders) != 1 {
		t.Fatalf("extenders = %+v", cfg.Extenders)
	}
	x := cfg.Extenders[0]
	checks := []struct {
		field     string
		got, want any
	}{
		{"urlPrefix", x.URLPrefix, "https://127.0.0.1:4711"},
		{"enableHTTPS", x.EnableHTTPS, true},
		{"tlsConfig.insecure", x.TLSConfig["insecure"], true},
		{"filterVerb", x.FilterVerb, "filter"},
		{"bindVerb", x.BindVerb, "bind"},
		{"nodeCacheCapable", x.NodeCacheCapable, true},
		{"weight", x.Weight, 1},
		{"httpTimeout", x.HTTPTimeout, "30s"},
		{"len(managedResources)", len(x.ManagedResources), 5},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.field, c.got, c.want)
		}
	}
	for i, want := range []string{"nvidia.com/gpu", "nvidia.com/gpumem", "nvidia.com/gpucores", "nvidia.com/gpumem-percentage", "nvidia.com/priority"} {
		if i >= len(x.ManagedResources) {
			break
		}
		if r := x.ManagedResources[i]; r["name"] != want || r["ignoredByScheduler"] != true {
			t.Errorf("managedResources[%d] = %v, want %s ignored by the scheduler", i, r, want)
		}
	}
}

func TestEgressSelectorConfig(t *testing.T) {
	var cfg struct {
		Kind             string `json:"kind"`
		EgressSelections []struct {
			Name       string `json:"name"`
			Connection struct {
				ProxyProtocol string `json:"proxyProtocol"`
				Transport     struct {
					UDS struct {
						UDSName string `json:"udsName"`
					} `json:"uds"`
				} `json:"transport"`
			} `json:"connection"`
		} `json:"egressSelections"`
	}
	raw, err := egressSelectorConfig("/w/a/konnectivity.sock")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(raw), &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.EgressSelections) != 1 {
		t.Fatalf("selections = %+v", cfg.EgressSelections)
	}
	s := cfg.EgressSelections[0]
	if s.Name != "cluster" || s.Connection.ProxyProtocol != "GRPC" || s.Connection.Transport.UDS.UDSName != "/w/a/konnectivity.sock" {
		t.Errorf("selection = %+v", s)
	}
}
