package testenv

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestMetricSum(t *testing.T) {
	page := `# HELP konnectivity_network_proxy_agent_dial_duration_seconds x
# TYPE konnectivity_network_proxy_agent_dial_duration_seconds histogram
konnectivity_network_proxy_agent_dial_duration_seconds_bucket{le="0.005"} 3
konnectivity_network_proxy_agent_dial_duration_seconds_sum 0.01
konnectivity_network_proxy_agent_dial_duration_seconds_count 3
konnectivity_network_proxy_agent_dial_duration_seconds_count_extra 100
konnectivity_network_proxy_server_dial_duration_seconds_count{a="1"} 2
konnectivity_network_proxy_server_dial_duration_seconds_count{a="2"} 5
`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(page)) }))
	defer srv.Close()
	_, portStr, _ := net.SplitHostPort(srv.Listener.Addr().String())
	var port int
	for _, c := range portStr {
		port = port*10 + int(c-'0')
	}
	for _, tc := range []struct {
		name string
		want int64
	}{
		{"konnectivity_network_proxy_agent_dial_duration_seconds_count", 3},
		{"konnectivity_network_proxy_server_dial_duration_seconds_count", 7},
		{"konnectivity_network_proxy_absent_count", 0},
	} {
		got, err := metricSum(context.Background(), port, tc.name)
		if err != nil || got != tc.want {
			t.Errorf("metricSum(%s) = %d, %v; want %d", tc.name, got, err, tc.want)
		}
	}
}

func TestPrefixEnd(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/tenant-a/", "/tenant-a0"},
		{"a", "b"},
		{"a\xff", "b"},
	} {
		if got := string(prefixEnd([]byte(tc.in))); got != tc.want {
			t.Errorf("prefixEnd(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
