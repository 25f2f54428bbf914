package helm

import "testing"

func TestReleaseDeployed(t *testing.T) {
	tests := []struct {
		name, json, want string
		ok               bool
	}{
		{"deployed", `{"name":"kamaji","info":{"status":"deployed"},"chart":{"metadata":{"version":"0.0.0+latest"}}}`, "0.0.0+latest", true},
		{"deployed without chart field", `{"name":"kamaji","info":{"status":"deployed"}}`, "0.0.0+latest", true},
		{"old chart installed", `{"name":"kamaji","info":{"status":"deployed"},"chart":{"metadata":{"version":"1.0.0"}}}`, "0.0.0+latest", false},
		{"failed", `{"name":"hami","info":{"status":"failed"}}`, "", false},
		{"pending install", `{"name":"hami","info":{"status":"pending-install"}}`, "", false},
		{"garbage", `Error: release: not found`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, cond := ReleaseDeployed([]byte(tt.json), tt.want)
			if ok != tt.ok || cond == "" {
				t.Fatalf("ReleaseDeployed = %v, %q; want %v", ok, cond, tt.ok)
			}
		})
	}
}
