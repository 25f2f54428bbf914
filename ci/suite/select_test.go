package suite

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

func ids(tasks []*task) string {
	var out []string
	for _, tk := range tasks {
		for _, c := range tk.cases {
			s := c.ID
			if c.skip != "" {
				s += "(skip)"
			}
			out = append(out, s)
		}
	}
	return strings.Join(out, " ")
}

func TestSelect(t *testing.T) {
	re := func(s string) *regexp.Regexp {
		if s == "" {
			return nil
		}
		return regexp.MustCompile(s)
	}
	tests := []struct{ run, skip, want string }{
		{"TC-0[1-2]", "", "TC-01 TC-02"},
		{"TC-07", "", "TC-03 TC-07"},               // prerequisite added
		{"TC-07", "TC-03", "TC-03(skip) TC-07"},    // kept so TC-07's block reason names it
		{"TC-1[0-1]", "", "TC-10 TC-11"},           // independent of each other
		{"", "TC-0[3-9]|TC-1|TC-2", "TC-01 TC-02"}, // everything else skipped away
		{"TC-13|TC-16", "", "TC-03 TC-13 TC-16"},   // order kept
		{"^TC-05$", "TC-05", ""},                   // nothing left
	}
	for _, tt := range tests {
		t.Run(tt.run+"/"+tt.skip, func(t *testing.T) {
			r := &runner{cfg: Config{Lab: lab.Default()}}
			if got := ids(select_(r.plan(), re(tt.run), re(tt.skip))); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no lab", Config{}, "Lab is nil"},
		{"missing tenant", Config{Lab: lab.Default(), Tenants: tenantsConfigs("tenant-a")}, "no rest.Config for tenant-b"},
		{"extra tenant", Config{Lab: lab.Default(), Tenants: tenantsConfigs("tenant-a", "tenant-b", "tenant-c")},
			"names tenant-c, which lab \"gpu-lab\" does not have"},
		{"bad regexp", Config{Lab: lab.Default(), Tenants: tenantsConfigs("tenant-a", "tenant-b"), Run: "TC-("}, "Run \"TC-(\""},
		{"negative parallel", Config{Lab: lab.Default(), Tenants: tenantsConfigs("tenant-a", "tenant-b"), Parallel: -1}, "Parallel is -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := tt.cfg.validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// A --run that matches no case is an error naming every case ID, before
// any tenant is asked: a typo must not run nothing and pass.
func TestRunMatchingNothingIsAnError(t *testing.T) {
	cfg := Config{Lab: lab.Default(), Tenants: map[string]*rest.Config{"tenant-a": {Host: "https://127.0.0.1:1"},
		"tenant-b": {Host: "https://127.0.0.1:1"}}, Run: "TC-99"}
	_, err := Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), `Run "TC-99" matches no case ID`) || !strings.Contains(err.Error(), "TC-01, TC-02") ||
		!strings.Contains(err.Error(), "TC-17") {
		t.Fatalf("Run(--run TC-99) = %v, want an error listing the case IDs", err)
	}
	cfg.Run = "TC-0[34]"
	if _, _, err := cfg.validate(); err != nil {
		t.Fatalf("a --run that matches cases was refused: %v", err)
	}
}
