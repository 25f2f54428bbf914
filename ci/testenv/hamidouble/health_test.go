package hamidouble

import (
	"testing"
	"time"
)

// TestHandshakeHealth: device.CheckHealth's rules (pkg/device/devices.go@v2.10.0).
func TestHandshakeHealth(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.Local)
	fresh := "Requesting_" + now.Add(-59*time.Second).Format(time.DateTime)
	stale := "Requesting_" + now.Add(-61*time.Second).Format(time.DateTime)
	cases := []struct {
		name                    string
		value                   string
		allocatable             int64
		healthy, changed, write bool
	}{
		{"missing: write one", "", 0, true, true, true},
		{"a device plugin's Reported value: write one", "Reported 2026-11-30 11:00:00", 0, true, true, true},
		{"younger than 60 s", fresh, 0, true, false, false},
		{"older than 60 s with devices", stale, 2, true, false, false},
		{"older than 60 s without devices", stale, 0, false, false, false},
		{"no separator", "Requesting", 0, true, false, false},
		{"unparsable time", "Requesting_soon", 0, true, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, c, w := handshakeHealth(tc.value, now, tc.allocatable)
			if h != tc.healthy || c != tc.changed || w != tc.write {
				t.Errorf("HandshakeHealth(%q, alloc %d) = %v,%v,%v, want %v,%v,%v", tc.value, tc.allocatable, h, c, w, tc.healthy, tc.changed, tc.write)
			}
		})
	}
}

// TestNvidiaHealth: NvidiaGPUDevices.CheckHealth's rules
// (pkg/device/nvidia/device.go@v2.10.0).
func TestNvidiaHealth(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name             string
		current          int64
		anno             string
		st               registerState
		hsHealthy, hsChg bool
		healthy, update  bool
		next             registerState
	}{
		{"never reported, allocatable 0: the handshake decides", 0, "A", registerState{}, true, true, true, true, registerState{}},
		{"never reported, allocatable 0, handshake expired", 0, "A", registerState{}, false, false, false, false, registerState{}},
		{"reported, allocatable now 0: unhealthy", 0, "A", registerState{20, "A"}, true, false, false, false, registerState{0, "A"}},
		{"first allocatable: register", 20, "A", registerState{}, true, false, true, true, registerState{20, "A"}},
		{"allocatable changed: register again", 10, "A", registerState{20, "A"}, true, false, true, true, registerState{10, "A"}},
		{"annotation changed: register again", 20, "B", registerState{20, "A"}, true, false, true, true, registerState{20, "B"}},
		{"nothing changed", 20, "A", registerState{20, "A"}, true, false, true, false, registerState{20, "A"}},
		{"nothing changed but handshake just written", 20, "A", registerState{20, "A"}, true, true, true, true, registerState{20, "A"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, u, next := nvidiaHealth(tc.current, tc.anno, tc.st, tc.hsHealthy, tc.hsChg)
			if h != tc.healthy || u != tc.update || next != tc.next {
				t.Errorf("NvidiaHealth = %v,%v,%+v, want %v,%v,%+v", h, u, next, tc.healthy, tc.update, tc.next)
			}
		})
	}
}
