package helm

import "encoding/json"

// A release whose last operation never finished — its helm process killed
// mid-install, say — stays pending, and helm refuses every later upgrade
// of it: `upgrade` stops with errPending, "another operation
// (install/upgrade/rollback) is in progress", whenever the last release is
// pending (helm v3.19.0 pkg/action/upgrade.go:218-221, action.go:63), and
// `upgrade --install` takes that path once any revision exists
// (cmd/helm/upgrade.go:120-160). The pending statuses are
// pkg/release/status.go:37-41 (IsPending, :47).
var pendingStatuses = map[string]bool{"pending-install": true, "pending-upgrade": true, "pending-rollback": true}

// Pending reads `helm status -o json` and returns the release's status when
// it is pending, else "".
func Pending(statusJSON []byte) string {
	var r Status
	if err := json.Unmarshal(statusJSON, &r); err != nil || !pendingStatuses[r.Info.Status] {
		return ""
	}
	return r.Info.Status
}

// UnpendArgs is the helm command line (without --kubeconfig) that ends a
// pending release so that `upgrade --install` can run again. An install
// that never finished is uninstalled: no revision of it was deployed.
// An upgrade or rollback that never finished is rolled back to the revision
// before it (`helm rollback` with no revision; pkg/action/rollback.go:108-110
// takes the current one minus one and checks no pending status).
func UnpendArgs(release, namespace, status string) []string {
	if status == "pending-install" {
		return []string{"uninstall", release, "--namespace", namespace, "--wait"}
	}
	return []string{"rollback", release, "--namespace", namespace}
}
