package suite

import (
	"fmt"
	"log/slog"
	"regexp"
	"sort"
	"strings"
	"time"

	"k8s.io/client-go/rest"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// Config is one suite run.
type Config struct {
	// Lab describes the platform's tenants and hardware; cases pick their
	// tenant and card from it and skip when it has no such hardware.
	Lab *lab.Lab
	// Tenants maps each lab tenant to a rest.Config of its API server
	// (admin credentials).
	Tenants map[string]*rest.Config
	// Backend says what the platform runs on; it is copied into the results.
	Backend string
	// Parallel bounds how many tasks (scenarios, independent cases) run at
	// once; 0 runs all of them at once.
	Parallel int
	// Serial runs every task one after the other (Parallel = 1), for comparison.
	Serial bool
	// Run and Skip are regular expressions on case IDs ("TC-0[1-8]").
	Run, Skip string
	// FailOnSkip fails a core case (Case.Core) that the lab's hardware
	// cannot run instead of skipping it; cases left out with Skip are
	// still skipped.
	FailOnSkip bool
	// Timeouts bound every wait; zero fields take defaultTimeouts.
	Timeouts Timeouts
	// Log receives progress; nil discards it.
	Log *slog.Logger
	// Image is the container image of the suite's pods. The default, the
	// pause image, is present on every kind node and never exits.
	Image string
	// KubernetesVersion is the version TC-01 expects the tenant API servers
	// to report; empty means Lab.Versions.Kubernetes.
	KubernetesVersion string
	// Reachability is the caller's CheckTenants result, when it checked
	// (to tell the user which tenant is down before the run): a tenant
	// present here is not checked again, nil meaning it answered. Run
	// checks every tenant missing from it. The cases of an unreachable
	// tenant fail with its error without running.
	Reachability map[string]error
	// Health, when set, says whether the platform's own components serving
	// a tenant run: nil when they do, else an error naming each one that
	// does not ("tenant-b/kube-scheduler exited on its own (signal:
	// killed)"). The local test environment sets it (testenv's
	// Env.TenantHealth); against a real platform it is nil. A running case
	// asks it about its tenants at once and then every 200 ms, and when a
	// case fails: a broken component ends the case at once, failed with
	// the component named instead of a timeout, while the cases of healthy
	// tenants go on. Cleanup and the end-of-run sample skip what it names.
	Health func(tenant string) error
}

// DefaultImage is the suite pods' image when Config.Image is empty.
const DefaultImage = "registry.k8s.io/pause:3.10"

// Timeouts bound the suite's waits. Every wait is a watch or an
// apimachinery wait helper that ends as soon as the awaited state is seen.
type Timeouts struct {
	// Bind is how long a pod may take to be bound (and Running where a case
	// says so). Real HAMi throttles its API calls, so seconds are normal.
	Bind time.Duration
	// Verdict is how long kube-scheduler may take to declare a pod
	// unschedulable.
	Verdict time.Duration
	// Delete is how long a deleted pod may take to disappear.
	Delete time.Duration
	// Burst bounds TC-14 (ten pods back to back); it stays below HAMi's
	// 5-minute node-lock stall so that stall is a failure.
	Burst time.Duration
	// Case bounds one case as a whole.
	Case time.Duration
	// Cleanup bounds deleting a case's namespaces, also after Ctrl-C.
	Cleanup time.Duration
	// Reach bounds the check that every tenant's API server answers,
	// made once before any case starts (DefaultReachTimeout).
	Reach time.Duration
	// Broken bounds the diagnostics of a case that failed while
	// Config.Health named a component of its tenant down, and the cleanup
	// of each namespace in such a tenant: a server that is suspended
	// holds every call until its bound.
	Broken time.Duration
}

// defaultTimeouts are generous for a real lab on 2 cores.
func defaultTimeouts() Timeouts {
	return Timeouts{
		Bind:    90 * time.Second,
		Verdict: 60 * time.Second,
		Delete:  60 * time.Second,
		Burst:   4 * time.Minute,
		Case:    6 * time.Minute,
		Cleanup: time.Minute,
		Reach:   DefaultReachTimeout,
		Broken:  10 * time.Second,
	}
}

func (t Timeouts) withDefaults() Timeouts {
	d := defaultTimeouts()
	fill := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	fill(&t.Bind, d.Bind)
	fill(&t.Verdict, d.Verdict)
	fill(&t.Delete, d.Delete)
	fill(&t.Burst, d.Burst)
	fill(&t.Case, d.Case)
	fill(&t.Cleanup, d.Cleanup)
	fill(&t.Reach, d.Reach)
	fill(&t.Broken, d.Broken)
	return t
}

// validate checks the config and compiles the selection.
func (c *Config) validate() (run, skip *regexp.Regexp, err error) {
	if c.Lab == nil {
		return nil, nil, fmt.Errorf("suite config: Lab is nil: load a lab file (lab.Load) or use lab.Default()")
	}
	var missing, extra []string
	for _, t := range c.Lab.TenantNames() {
		if c.Tenants[t] == nil {
			missing = append(missing, t)
		}
	}
	for t := range c.Tenants {
		if c.Lab.Tenant(t) == nil {
			extra = append(extra, t)
		}
	}
	sort.Strings(extra)
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("suite config: Tenants has no rest.Config for %s: give a kubeconfig for every tenant of "+
			"lab %q (--kubeconfig %s=PATH or --state-dir)",
			strings.Join(missing, ", "), c.Lab.Name, missing[0])
	}
	if len(extra) > 0 {
		return nil, nil, fmt.Errorf("suite config: Tenants names %s, which lab %q does not have (its tenants: %s)",
			strings.Join(extra, ", "), c.Lab.Name, strings.Join(c.Lab.TenantNames(), ", "))
	}
	if c.Run != "" {
		if run, err = regexp.Compile(c.Run); err != nil {
			return nil, nil, fmt.Errorf("suite config: Run %q: %w", c.Run, err)
		}
		// A selection that matches nothing would run nothing and pass: a
		// typo in a CI job must not stay green.
		var ids []string
		matched := false
		for _, tc := range Cases() {
			matched = matched || run.MatchString(tc.ID)
			ids = append(ids, tc.ID)
		}
		if !matched {
			return nil, nil, fmt.Errorf("suite config: Run %q matches no case ID; the cases are %s (labctl test --list describes "+
				"each)", c.Run, strings.Join(ids, ", "))
		}
	}
	if c.Skip != "" {
		if skip, err = regexp.Compile(c.Skip); err != nil {
			return nil, nil, fmt.Errorf("suite config: Skip %q: %w", c.Skip, err)
		}
	}
	if c.Parallel < 0 {
		return nil, nil, fmt.Errorf("suite config: Parallel is %d: use 0 (no bound) or a positive number", c.Parallel)
	}
	return run, skip, nil
}
