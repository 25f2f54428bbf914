package helm

import (
	"os"
	"slices"
	"testing"
)

// TestPendingReadsRecordedStatus: helm v3.19.0's own `status -o json` of a
// release whose install or upgrade was killed (testdata/pending-v3.19.0),
// and of a deployed one; UnpendArgs is what the recording ran to unlock
// each (uninstall, rollback; both exit 0 there).
func TestPendingReadsRecordedStatus(t *testing.T) {
	for _, tc := range []struct {
		file, pending string
		unpend        []string
	}{
		{"status-pending-install.json", "pending-install", []string{"uninstall", "probe", "--namespace", "ns", "--wait"}},
		{"status-pending-upgrade.json", "pending-upgrade", []string{"rollback", "probe", "--namespace", "ns"}},
		{"status-deployed.json", "", nil},
	} {
		b, err := os.ReadFile("testdata/pending-v3.19.0/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		got := Pending(b)
		if got != tc.pending {
			t.Errorf("%s: Pending = %q, want %q", tc.file, got, tc.pending)
		}
		if got != "" {
			if args := UnpendArgs("probe", "ns", got); !slices.Equal(args, tc.unpend) {
				t.Errorf("%s: UnpendArgs = %q, want %q", tc.file, args, tc.unpend)
			}
		}
	}
	if got := Pending([]byte("Error: release: not found")); got != "" {
		t.Errorf("Pending of an error text = %q, want \"\"", got)
	}
}
