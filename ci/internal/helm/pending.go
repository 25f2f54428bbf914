package helm

import (
	"encoding/json"
	"fmt"
)

// A release whose last operation never finished — its helm process killed
// mid-install, say — stays pending, and helm refuses every later upgrade
// of it: `upgrade` stops with errPending, "another operation
// (install/upgrade/rollback) is in progress", whenever the last release is
// pending (helm v3.19.0 pkg/action/upgrade.go:218-221, action.go:63), and
// `upgrade --install` takes that path once any revision exists
// (cmd/helm/upgrade.go:120-160). The pending statuses are
// pkg/release/status.go:37-41 (IsPending, :47).
var pendingStatuses = map[string]bool{"pending-install": true, "pending-upgrade": true, "pending-rollback": true}

// Pending reads `helm status -o json` and, when the release is pending,
// returns its status and the name of the Secret helm keeps that revision in
// (the default storage driver: helm v3.19.0 pkg/storage/driver/secrets.go;
// the name sh.helm.release.v1.NAME.vREVISION, pkg/storage/storage.go:35,
// 251-253); else "", "".
//
// Deleting that Secret ends the pending revision and nothing else: the
// objects it made stay, and the next `upgrade --install` adopts them
// (pkg/action/validate.go:65-92: an object labelled managed-by Helm and
// annotated with the release's name and namespace is taken into the
// release) or, for a pending upgrade, upgrades from the revision before,
// still deployed. Uninstalling instead waits out helm's timeout where the
// chart's controller goes before the finalizers it owns (Kamaji's
// DataStore, finalizer kamaji.clastix.io/TenantControlPlane: 5 min, then
// failed, on the rehearsal; ci/hack/rehearsal/testdata/findings/
// 2026-12-07-helm-pending).
func Pending(statusJSON []byte) (status, record string) {
	var r Status
	if err := json.Unmarshal(statusJSON, &r); err != nil || !pendingStatuses[r.Info.Status] || r.Name == "" || r.Version < 1 {
		return "", ""
	}
	return r.Info.Status, fmt.Sprintf("sh.helm.release.v1.%s.v%d", r.Name, r.Version)
}
