package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/report"
	"github.com/gpu-lab/gpu-lab/ci/state"
	"github.com/gpu-lab/gpu-lab/ci/suite"
)

// testFlags are `labctl test`'s flags.
type testFlags struct {
	stateDir    string
	kubeconfigs []string
	file        string
	reportDir   string
	run, skip   string
	parallel    int
	serial      bool
	timeout     time.Duration
	caseTimeout time.Duration
	backend     string
	image       string
	version     string
	list        bool
	failOnSkip  bool
	verbose     bool
	// reachTimeout bounds the check that every tenant answers.
	reachTimeout time.Duration
}

func newTestCommand(s streams) *cobra.Command {
	var f testFlags
	cmd := &cobra.Command{
		Use:   "test",
		Short: "Run the conformance suite (" + caseRange(func(suite.Case) bool { return true }) + ") against a lab and write reports",
		Long: `Runs the conformance suite against the tenants' API servers, concurrently, and writes
junit.xml, results.json, summary.md, report.html and diagnostics/ into --report-dir, also when
cases fail or the run is interrupted. Exits 1 when any case fails.

First every tenant's API server is asked for /version, all at once, for at most
--reach-timeout: a tenant that does not answer is named once with its kubeconfig, and its
cases fail without running (reports are still written).

The tenants come from a state directory written by ` + "`labctl up`" + ` or ` + "`labctl testenv up`" + `,
or, for an existing platform, from one --kubeconfig per tenant plus a lab file (-f) describing
its tenants and GPUs (no state dir is read then).

` + labRule,
		Example: `  labctl test --state-dir .lab --report-dir reports
  labctl test --run 'TC-0[1-8]' --serial
  labctl test -f my-platform.yaml --kubeconfig tenant-a=a.yaml --kubeconfig tenant-b=b.yaml --backend "existing platform"
  labctl test --list`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSuite(cmd.Context(), s, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.stateDir, "state-dir", state.DefaultDir,
		"state directory written by 'labctl up' or 'labctl testenv up' (kubeconfigs, resolved-lab.yaml, backend)")
	fl.StringArrayVar(&f.kubeconfigs, "kubeconfig", nil, "TENANT=PATH, once per tenant: use these kubeconfigs instead of the state dir's")
	fl.StringVarP(&f.file, "file", "f", "", "lab file describing the tenants and their GPUs (with --kubeconfig; "+
		"default: the embedded seed lab); with a state dir it must be the lab the state dir records")
	fl.StringVar(&f.reportDir, "report-dir", "reports", "directory for junit.xml, results.json, summary.md, report.html, diagnostics/")
	fl.StringVar(&f.run, "run", "", "run only cases whose ID matches this regexp (their prerequisites run too)")
	fl.StringVar(&f.skip, "skip", "", "skip cases whose ID matches this regexp")
	fl.IntVar(&f.parallel, "parallel", 0, "at most this many scenarios/cases at once (0 = all)")
	fl.BoolVar(&f.serial, "serial", false, "run everything one after the other (for comparison with the concurrent run)")
	fl.DurationVar(&f.timeout, "timeout", 0, "stop the whole run after this long (0 = no limit); reports are still written")
	fl.DurationVar(&f.caseTimeout, "case-timeout", 0, "bound for one case (0 = the suite default)")
	fl.StringVar(&f.backend, "backend", "",
		"what the platform runs on, shown in reports (default: the state dir's, else \"existing platform\")")
	fl.StringVar(&f.image, "image", "", "container image of the suite's pods (default "+suite.DefaultImage+")")
	fl.StringVar(&f.version, "expect-version", "",
		"Kubernetes version TC-01 expects (default: the state dir's server-version, else the lab's versions.kubernetes)")
	fl.BoolVar(&f.list, "list", false, "list the cases, what each asserts and the hardware it needs, and exit")
	core := func(c suite.Case) bool { return c.Core }
	fl.BoolVar(&f.failOnSkip, "fail-on-skip", false, fmt.Sprintf("fail (exit 1) when the lab's hardware cannot "+
		"run one of the seed's %d core cases (%s), instead of skipping it", caseCount(core), caseRange(core)))
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log progress to stderr")
	fl.DurationVar(&f.reachTimeout, "reach-timeout", suite.DefaultReachTimeout,
		"how long each tenant's API server may take to answer GET /version before its cases fail without running")
	return cmd
}

// caseRange names the suite's cases that pick keeps, from the catalog
// itself so the help cannot fall behind it: "TC-01..TC-08" when they follow
// one another in the catalog, else their IDs one by one.
func caseRange(pick func(suite.Case) bool) string {
	var ids []string
	contiguous, last := true, -1
	for i, c := range suite.Cases() {
		if !pick(c) {
			continue
		}
		if last >= 0 && i != last+1 {
			contiguous = false
		}
		last = i
		ids = append(ids, c.ID)
	}
	if contiguous && len(ids) > 2 {
		return ids[0] + ".." + ids[len(ids)-1]
	}
	return strings.Join(ids, ", ")
}

// caseCount is how many of the suite's cases pick keeps.
func caseCount(pick func(suite.Case) bool) int {
	n := 0
	for _, c := range suite.Cases() {
		if pick(c) {
			n++
		}
	}
	return n
}

func runSuite(ctx context.Context, s streams, f testFlags) error {
	out := s.out
	if f.list {
		printCases(out)
		return nil
	}
	tg, err := testTarget(f)
	if err != nil {
		return err
	}
	l, tenants, backend := tg.lab, tg.tenants, tg.backend
	if f.version == "" && len(f.kubeconfigs) == 0 {
		// A state dir may record that its servers run another patch
		// version than the lab pins (the local test environment).
		f.version = state.Dir(f.stateDir).ServerVersion()
	}
	cfg := suiteConfig(f, tg, s.errOut)
	if ctx == nil {
		ctx = context.Background()
	}
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	fmt.Fprintf(out, "testing lab %s (%s), tenants %s\n", l.Name, backend, strings.Join(l.TenantNames(), ", "))
	// One check of every tenant, all at once, before any case: a dead
	// tenant is named once here with its kubeconfig, and its cases fail
	// at once with that reason instead of each timing out on its own.
	cfg.Reachability = suite.CheckTenants(ctx, tenants, f.reachTimeout)
	short := tg.nameUnreachable(ctx, out, cfg.Reachability)
	run, err := suite.Run(ctx, cfg)
	if err != nil {
		return err
	}
	printResultTable(out, run, short)
	if werr := report.WriteAll(f.reportDir, run); werr != nil {
		return fmt.Errorf("write reports to %s: %w", f.reportDir, werr)
	}
	fmt.Fprintf(out, "reports written to %s\n", f.reportDir)
	if !run.OK() {
		return exitError{code: 1}
	}
	return nil
}

// printCases is --list: each case, what it asserts and the hardware it
// needs, with the seed's core cases marked.
func printCases(out io.Writer) {
	for _, c := range suite.Cases() {
		core := ""
		if c.Core {
			core = " (core)"
		}
		fmt.Fprintf(out, "%s  %s%s\n       %s\n       needs: %s\n", c.ID, c.Title, core, c.Asserts, c.Needs)
	}
}

// suiteConfig is the suite's configuration from the flags and the target;
// its progress log goes to errOut only with --verbose.
func suiteConfig(f testFlags, tg target, errOut io.Writer) suite.Config {
	logOut := io.Discard
	if f.verbose {
		logOut = errOut
	}
	return suite.Config{
		Lab: tg.lab, Tenants: tg.tenants, Backend: tg.backend,
		Parallel: f.parallel, Serial: f.serial, Run: f.run, Skip: f.skip, FailOnSkip: f.failOnSkip,
		Timeouts:          suite.Timeouts{Case: f.caseTimeout},
		Log:               slog.New(slog.NewTextHandler(logOut, nil)),
		Image:             f.image,
		KubernetesVersion: f.version,
	}
}

// nameUnreachable prints each tenant that did not answer, once, with its
// kubeconfig and what to do, and puts that explanation into reach. It
// returns, per such explanation, the short line the result table shows for
// the tenant's cases instead of repeating it.
func (tg target) nameUnreachable(ctx context.Context, out io.Writer, reach map[string]error) map[string]string {
	short := map[string]string{}
	for _, t := range tg.lab.TenantNames() {
		if ctx.Err() != nil {
			break // interrupted: the run says so; no tenant is to blame
		}
		if err := reach[t]; err != nil {
			err = tg.explainUnreachable(t, err)
			reach[t] = err
			fmt.Fprintln(out, err)
			short[suite.NotRunMessage(err)] = fmt.Sprintf("not run: tenant %s is unreachable (above)", t)
		}
	}
	return short
}

// target is what `labctl test` runs against.
type target struct {
	lab     *lab.Lab
	tenants map[string]*rest.Config
	backend string
	// kubeconfigs are the files the tenants' configs came from.
	kubeconfigs map[string]string
	// stateDir is set when they came from a state dir.
	stateDir state.Dir
}

// testTarget resolves the lab, the tenants' rest.Configs and the backend
// description from the flags.
func testTarget(f testFlags) (target, error) {
	d := state.Dir(f.stateDir)
	tg := target{kubeconfigs: map[string]string{}, tenants: map[string]*rest.Config{}, backend: f.backend}
	var err error
	if len(f.kubeconfigs) > 0 {
		// An existing platform: no state dir, so -f or the seed lab.
		tg.lab, err = lab.Load(f.file)
	} else {
		tg.lab, err = resolveLab(f.file, d, needsState)
	}
	if err != nil {
		return target{}, err
	}
	paths := tg.kubeconfigs
	if len(f.kubeconfigs) > 0 {
		for _, kv := range f.kubeconfigs {
			t, p, ok := strings.Cut(kv, "=")
			if !ok || t == "" || p == "" {
				return target{}, fmt.Errorf("--kubeconfig %q: want TENANT=PATH, e.g. --kubeconfig tenant-a=./a.kubeconfig", kv)
			}
			paths[t] = p
		}
		if err := checkKubeconfigTenants(tg.lab, f.kubeconfigs, f.file); err != nil {
			return target{}, err
		}
		if tg.backend == "" {
			tg.backend = "existing platform"
		}
	} else {
		tg.stateDir = d
		for _, t := range tg.lab.TenantNames() {
			paths[t] = d.Kubeconfig(t)
		}
		if tg.backend == "" {
			tg.backend = d.Backend()
		}
		if tg.backend == "" {
			tg.backend = "lab in state dir " + f.stateDir
		}
	}
	names := make([]string, 0, len(paths))
	for t := range paths {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		p := paths[t]
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			return target{}, fmt.Errorf("tenant %s: kubeconfig %s does not exist: "+
				"run `labctl up --state-dir %s` (or `labctl testenv up`), or pass --kubeconfig %s=PATH", t, p, f.stateDir, t)
		}
		rc, err := clientcmd.BuildConfigFromFlags("", p)
		if err != nil {
			return target{}, fmt.Errorf("tenant %s: kubeconfig %s: %w", t, p, err)
		}
		tg.tenants[t] = rc
	}
	return tg, nil
}

// explainUnreachable adds to a tenant's reachability error the kubeconfig
// it came from and, for a state dir, what to do: a state dir written by
// `labctl testenv up` outlives the environment, whose servers then refuse
// connections; a real lab may be down or still starting.
func (tg target) explainUnreachable(tenant string, err error) error {
	err = fmt.Errorf("%w (kubeconfig %s)", err, tg.kubeconfigs[tenant])
	d := tg.stateDir
	if d == "" {
		return err
	}
	if d.Kind() == state.Testenv {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return fmt.Errorf("%w: the local test environment that wrote state dir %s is not running; "+
				"start it with `labctl testenv up --state-dir %s` and leave it running", err, d, d)
		}
		return fmt.Errorf("%w: the local test environment that wrote state dir %s does not answer; "+
			"is `labctl testenv up --state-dir %s` still running (not stopped)?", err, d, d)
	}
	return fmt.Errorf("%w: is the lab up? `labctl status --state-dir %s` shows it, `labctl up --state-dir %s` starts it", err, d, d)
}
