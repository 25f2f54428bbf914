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
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/report"
	"github.com/gpu-lab/gpu-lab/ci/results"
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
	verbose     bool
}

func init() {
	var f testFlags
	cmd := &cobra.Command{
		Use:   "test",
		Short: "Run the conformance suite (TC-01..TC-16) against a lab and write reports",
		Long: `Runs the conformance suite against the tenants' API servers, concurrently, and writes
junit.xml, results.json, summary.md, report.html and diagnostics/ into --report-dir, also when
cases fail or the run is interrupted. Exits 1 when any case fails.

The tenants come from a state directory written by ` + "`labctl up`" + ` or ` + "`labctl testenv up`" + `,
or, for an existing platform, from one --kubeconfig per tenant plus a lab file (-f) describing
its tenants and GPUs.`,
		Example: `  labctl test --state-dir .lab --report-dir reports
  labctl test --run 'TC-0[1-8]' --serial
  labctl test -f my-platform.yaml --kubeconfig tenant-a=a.yaml --kubeconfig tenant-b=b.yaml --backend "existing platform"
  labctl test --list`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSuite(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.stateDir, "state-dir", state.DefaultDir, "state directory written by 'labctl up' or 'labctl testenv up' (kubeconfigs, lab.yaml, backend)")
	fl.StringArrayVar(&f.kubeconfigs, "kubeconfig", nil, "TENANT=PATH, once per tenant: use these kubeconfigs instead of the state dir's")
	fl.StringVarP(&f.file, "file", "f", "", "lab file describing the tenants and their GPUs (default: the state dir's lab.yaml, else the embedded seed lab)")
	fl.StringVar(&f.reportDir, "report-dir", "reports", "directory for junit.xml, results.json, summary.md, report.html, diagnostics/")
	fl.StringVar(&f.run, "run", "", "run only cases whose ID matches this regexp (their prerequisites run too)")
	fl.StringVar(&f.skip, "skip", "", "skip cases whose ID matches this regexp")
	fl.IntVar(&f.parallel, "parallel", 0, "at most this many scenarios/cases at once (0 = all)")
	fl.BoolVar(&f.serial, "serial", false, "run everything one after the other (for comparison with the concurrent run)")
	fl.DurationVar(&f.timeout, "timeout", 0, "stop the whole run after this long (0 = no limit); reports are still written")
	fl.DurationVar(&f.caseTimeout, "case-timeout", 0, "bound for one case (0 = the suite default)")
	fl.StringVar(&f.backend, "backend", "", "what the platform runs on, shown in reports (default: the state dir's, else \"existing platform\")")
	fl.StringVar(&f.image, "image", "", "container image of the suite's pods (default "+suite.DefaultImage+")")
	fl.StringVar(&f.version, "expect-version", "", "Kubernetes version TC-01 expects (default: the state dir's server-version, else the lab's versions.kubernetes)")
	fl.BoolVar(&f.list, "list", false, "list the cases and exit")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log progress to stderr")
	root.AddCommand(cmd)
}

func runSuite(cmd *cobra.Command, f testFlags) error {
	out := cmd.OutOrStdout()
	if f.list {
		for _, c := range suite.Cases() {
			fmt.Fprintf(out, "%s  %s\n       %s\n", c.ID, c.Title, c.Asserts)
		}
		return nil
	}
	l, tenants, backend, err := testTarget(f)
	if err != nil {
		return err
	}
	if f.version == "" && len(f.kubeconfigs) == 0 {
		// A state dir may record that its servers run another patch
		// version than the lab pins (the local test environment).
		f.version = state.Dir(f.stateDir).ServerVersion()
	}
	logOut := io.Discard
	if f.verbose {
		logOut = cmd.ErrOrStderr()
	}
	cfg := suite.Config{
		Lab: l, Tenants: tenants, Backend: backend,
		Parallel: f.parallel, Serial: f.serial, Run: f.run, Skip: f.skip,
		Timeouts:          suite.Timeouts{Case: f.caseTimeout},
		Log:               slog.New(slog.NewTextHandler(logOut, nil)),
		Image:             f.image,
		KubernetesVersion: f.version,
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	fmt.Fprintf(out, "testing lab %s (%s), tenants %s\n", l.Name, backend, strings.Join(l.TenantNames(), ", "))
	run, err := suite.Run(ctx, cfg)
	if err != nil {
		return err
	}
	printRun(out, run)
	if werr := report.WriteAll(f.reportDir, run); werr != nil {
		return fmt.Errorf("write reports to %s: %w", f.reportDir, werr)
	}
	fmt.Fprintf(out, "reports written to %s\n", f.reportDir)
	if !run.OK() {
		return exitError{code: 1}
	}
	return nil
}

// testTarget resolves the lab, the tenants' rest.Configs and the backend
// description from the flags.
func testTarget(f testFlags) (*lab.Lab, map[string]*rest.Config, string, error) {
	d := state.Dir(f.stateDir)
	var l *lab.Lab
	var err error
	switch {
	case f.file != "":
		l, err = lab.Load(f.file)
	case len(f.kubeconfigs) > 0:
		l = lab.Default()
	default:
		l, err = d.ReadLab()
	}
	if err != nil {
		return nil, nil, "", err
	}
	paths := map[string]string{}
	backend := f.backend
	if len(f.kubeconfigs) > 0 {
		for _, kv := range f.kubeconfigs {
			t, p, ok := strings.Cut(kv, "=")
			if !ok || t == "" || p == "" {
				return nil, nil, "", fmt.Errorf("--kubeconfig %q: want TENANT=PATH, e.g. --kubeconfig tenant-a=./a.kubeconfig", kv)
			}
			paths[t] = p
		}
		if backend == "" {
			backend = "existing platform"
		}
	} else {
		for _, t := range l.TenantNames() {
			paths[t] = d.Kubeconfig(t)
		}
		if backend == "" {
			backend = d.Backend()
		}
		if backend == "" {
			backend = "lab in state dir " + f.stateDir
		}
	}
	tenants := map[string]*rest.Config{}
	names := make([]string, 0, len(paths))
	for t := range paths {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		p := paths[t]
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			return nil, nil, "", fmt.Errorf("tenant %s: kubeconfig %s does not exist: run `labctl up --state-dir %s` (or `labctl testenv up`), or pass --kubeconfig %s=PATH", t, p, f.stateDir, t)
		}
		rc, err := clientcmd.BuildConfigFromFlags("", p)
		if err != nil {
			return nil, nil, "", fmt.Errorf("tenant %s: kubeconfig %s: %w", t, p, err)
		}
		tenants[t] = rc
	}
	return l, tenants, backend, nil
}

// printRun prints one line per case and a total.
func printRun(w io.Writer, run *results.Run) {
	for _, c := range run.Cases {
		mark := map[results.Status]string{results.Passed: "PASS", results.Failed: "FAIL", results.Skipped: "SKIP"}[c.Status]
		line := fmt.Sprintf("%s %s %-70s %6.1fs", mark, c.ID, c.Title, c.Duration.Seconds())
		if c.Message != "" {
			line += "  " + c.Message
		}
		fmt.Fprintln(w, line)
	}
	p, fl, s := run.Counts()
	extra := ""
	if run.Interrupted {
		extra = ", INTERRUPTED"
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped in %.1fs (parallel %d%s)\n", p, fl, s, run.Duration.Seconds(), run.Parallel, extra)
}
