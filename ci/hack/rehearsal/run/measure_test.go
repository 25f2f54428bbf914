package run

import (
	"os"
	"path/filepath"
	"testing"
)

// VmHWM of a real dockerd's /proc/PID/status (testdata/README.md).
func TestPeakRSS(t *testing.T) {
	b, err := os.ReadFile("testdata/dockerd-status.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := peakRSS(b)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(111252 * 1024); got != want { // "VmHWM:	  111252 kB"
		t.Errorf("PeakRSS = %d, want %d", got, want)
	}
	for _, bad := range []string{"Name:\tkthreadd\n", "VmHWM:\t 12 MB\n", "VmHWM:\t x kB\n"} {
		if _, err := peakRSS([]byte(bad)); err == nil {
			t.Errorf("PeakRSS(%q): no error", bad)
		}
	}
}

// The recorded cgroup v1 value reads as a number; the file names follow
// the kernel's, under the daemon's cgroup parent.
func TestMemoryPeak(t *testing.T) {
	n, err := readInt("testdata/cgroup-v1-memory.max_usage_in_bytes.txt")
	if err != nil || n <= 0 {
		t.Errorf("readInt(recorded max_usage_in_bytes) = %d, %v", n, err)
	}
	for _, tc := range []struct {
		v2   bool
		want string
	}{
		{false, "/sys/fs/cgroup/memory/gpu-lab-rehearsal/memory.max_usage_in_bytes"},
		{true, "/sys/fs/cgroup/gpu-lab-rehearsal/memory.peak"},
	} {
		if got := memoryPeakFile("/sys/fs/cgroup", "gpu-lab-rehearsal", tc.v2); got != tc.want {
			t.Errorf("MemoryPeakFile(v2=%v) = %s, want %s", tc.v2, got, tc.want)
		}
	}
}

// Disk usage counts a hard-linked file once (image layers share files)
// and a missing directory as nothing.
func TestDiskUsage(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 64<<10)
	if err := os.WriteFile(filepath.Join(dir, "a"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	one, err := diskUsage(dir)
	if err != nil || one < int64(len(data)) {
		t.Fatalf("DiskUsage with one file = %d, %v; want at least %d", one, err, len(data))
	}
	if err := os.Link(filepath.Join(dir, "a"), filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
	if linked, err := diskUsage(dir, filepath.Join(dir, "missing")); err != nil || linked != one {
		t.Errorf("DiskUsage with a hard link = %d, %v; want %d as before", linked, err, one)
	}
	if err := os.WriteFile(filepath.Join(dir, "c"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if two, _ := diskUsage(dir); two < one+int64(len(data)) {
		t.Errorf("DiskUsage with a second file = %d, want at least %d", two, one+int64(len(data)))
	}
}
