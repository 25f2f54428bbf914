package helm

import (
	"os"
	"testing"
)

// TestPendingReadsRecordedStatus: helm v3.19.0's own `status -o json` of a
// release whose install or upgrade was killed (testdata/pending-v3.19.0),
// and of a deployed one: the pending status and the Secret that records
// that revision (sh.helm.release.v1.NAME.vREVISION).
func TestPendingReadsRecordedStatus(t *testing.T) {
	for _, tc := range []struct {
		file, status, record string
	}{
		{"status-pending-install.json", "pending-install", "sh.helm.release.v1.probe.v1"},
		{"status-pending-upgrade.json", "pending-upgrade", "sh.helm.release.v1.probe.v2"},
		{"status-deployed.json", "", ""},
	} {
		b, err := os.ReadFile("testdata/pending-v3.19.0/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if st, rec := Pending(b); st != tc.status || rec != tc.record {
			t.Errorf("%s: Pending = %q, %q; want %q, %q", tc.file, st, rec, tc.status, tc.record)
		}
	}
	if st, rec := Pending([]byte("Error: release: not found")); st != "" || rec != "" {
		t.Errorf("Pending of an error text = %q, %q; want nothing", st, rec)
	}
}
