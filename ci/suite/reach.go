package suite

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// DefaultReachTimeout bounds the reachability check of every tenant. All
// tenants are checked at once, so it is also the bound of the whole check.
// Against a server that accepts TCP but never answers TLS, nothing shorter
// than this would tell a slow server from a dead one; nothing longer is
// needed when the server answers GET /version in milliseconds.
const DefaultReachTimeout = 10 * time.Second

// probeFunc asks one tenant's API server for an answer within ctx.
type probeFunc func(ctx context.Context, tenant string) error

// CheckTenants asks every tenant's API server for GET /version, all at
// once, each bounded by timeout (DefaultReachTimeout when zero), and
// returns one entry per tenant: nil when it answered, else why not. Pass
// the result as Config.Reachability so Run does not check again.
func CheckTenants(ctx context.Context, tenants map[string]*rest.Config, timeout time.Duration) map[string]error {
	clients := map[string]kubernetes.Interface{}
	out := map[string]error{}
	for name, rc := range tenants {
		cs, err := kubernetes.NewForConfig(rc)
		if err != nil {
			out[name] = fmt.Errorf("tenant %s: client for %s: %w", name, rc.Host, err)
			continue
		}
		clients[name] = cs
	}
	names := make([]string, 0, len(clients))
	for n := range clients {
		names = append(names, n)
	}
	for n, err := range checkTenants(ctx, names, timeout, versionProbe(clients)) {
		out[n] = err
	}
	return out
}

// versionProbe is GET /version: every API server serves it (routes
// versionWS.Path("/version") in k8s.io/apiserver v0.36.3
// pkg/server/routes/version.go), also before it is ready, and RBAC grants
// it to everyone (system:public-info-viewer in
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go, Kubernetes
// v1.36.3). An error means the server was not reached or refused the
// credentials, never that a check of the lab failed.
func versionProbe(clients map[string]kubernetes.Interface) probeFunc {
	return func(ctx context.Context, tenant string) error {
		return clients[tenant].Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Error()
	}
}

// checkTenants runs probe for every tenant concurrently, each under a
// context whose deadline is at most timeout away, so the whole check ends
// within timeout even when every server hangs.
func checkTenants(ctx context.Context, tenants []string, timeout time.Duration, probe probeFunc) map[string]error {
	if timeout <= 0 {
		timeout = DefaultReachTimeout
	}
	sort.Strings(tenants)
	out := make(map[string]error, len(tenants))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, tn := range tenants {
		wg.Go(func() {
			pctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			err := probe(pctx, tn)
			if err != nil {
				if pctx.Err() != nil && ctx.Err() == nil {
					err = fmt.Errorf("no answer within %s: %w", timeout, err)
				}
				err = fmt.Errorf("tenant %s: API server unreachable: %w", tn, err)
			}
			mu.Lock()
			out[tn] = err
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

// NotRunMessage is the message of a case that did not run because a
// tenant it needs was unreachable (err is that tenant's error).
func NotRunMessage(err error) string { return "not run: " + oneLine(err.Error()) }

// unreachableTenant returns the first tenant of the case known to be
// unreachable and why; "" when every tenant was reached.
func (r *runner) unreachableTenant(tenants []string) (string, error) {
	for _, tn := range tenants {
		if err := r.reach[tn]; err != nil {
			return tn, err
		}
	}
	return "", nil
}

// checkReach fills r.reach: the caller's results where given, a check of
// its own for the tenants the caller did not check.
func (r *runner) checkReach(ctx context.Context) {
	r.reach = map[string]error{}
	var todo []string
	for _, tn := range r.cfg.Lab.TenantNames() {
		if err, checked := r.cfg.Reachability[tn]; checked {
			r.reach[tn] = err
			continue
		}
		todo = append(todo, tn)
	}
	if len(todo) == 0 {
		return
	}
	probe := r.probe
	if probe == nil {
		probe = versionProbe(r.clients)
	}
	for tn, err := range checkTenants(ctx, todo, r.tm.Reach, probe) {
		if down := r.health([]string{tn}); err != nil && down != nil {
			err = fmt.Errorf("%s: %w", down.Error(), err) // why it does not answer
		}
		r.reach[tn] = err
		if err != nil {
			r.log.Warn("tenant unreachable; its cases fail without running", "tenant", tn, "err", err)
		}
	}
}
