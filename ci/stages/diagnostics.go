package stages

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/gpu-lab/gpu-lab/ci/stages/internal/diagnostics"
)

// Diagnose writes what a user needs to understand a failed bring-up into
// dir (a private bundle directory state.Dir.NewDiagnostics made; the
// bundle is the one part of the state dir whose files Diagnose writes),
// best effort (every piece that cannot be collected is listed in
// errors.txt rather than aborting the rest; ci/stages/internal/diagnostics
// writes the files):
//
//	error.txt                  the stage error
//	kind/                      kind export logs of the management cluster
//	management/tcp.yaml        every TenantControlPlane with its status
//	management/kamaji-pods.txt pods of kamaji-system and the tenant namespaces
//	management/events.txt      events of those namespaces
//	tenants/<t>/nodes.yaml     tenant nodes (conditions, annotations)
//	tenants/<t>/events.txt     tenant events, all namespaces
//	tenants/<t>/pods.txt       kube-system pods
//	tenants/<t>/logs/<pod>_<container>.log
//	                           logs of HAMi's pods (its device plugin and vGPU
//	                           monitor too) and the nvml-mock pods, init
//	                           containers included
//	workers/<node>.log         docker logs and kubelet journal of each worker
//
// Only what this state dir made is read from (owner.go): the kind cluster
// when it is this state dir's, the workers it started (ownedContainers);
// a foreign cluster of the lab's name is named in errors.txt instead.
func Diagnose(ctx context.Context, e *Env, failed *Error, dir string) error {
	b := diagnostics.New(dir)
	b.Write("error.txt", []byte(failed.Error()+"\n"))
	// Only this state dir's cluster and containers (owner.go): a bring-up
	// that failed because a foreign cluster or container has the lab's
	// names must not run kind or journalctl against it.
	if owned, err := e.ownedKindCluster(ctx); err != nil {
		b.Note(fmt.Errorf("kind export logs: not collected: %w", err))
	} else if owned {
		b.Note(e.Kind.CollectLogs(ctx, e.Lab.Name, filepath.Join(dir, "kind")))
	}
	if mc, err := e.managementClients(); err != nil {
		b.Note(err)
	} else {
		b.Management(ctx, mc.Kube, mc.Dynamic, tcpGVR, append([]string{KamajiNamespace}, e.Lab.TenantNames()...))
	}
	for _, t := range e.Lab.Tenants {
		// A tenant that never came up has nothing (its TenantControlPlane's
		// status says why).
		if tc, err := e.tenantClients(t.Name); err == nil {
			b.Tenant(ctx, tc.Kube, t.Name)
		}
	}
	if names, err := e.ownedContainers(ctx); err != nil {
		b.Note(err)
	} else {
		b.Workers(ctx, e.Docker, names)
	}
	return b.Close()
}
