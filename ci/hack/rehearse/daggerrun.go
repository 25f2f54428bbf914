package main

import (
	"cmp"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/daggerrun"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/cache"
	rehrun "github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/run"
)

// rehearseDaggerRun is `rehearse dagger run`: the glue only; what it does
// lives in ci/hack/rehearsal/daggerrun.
func rehearseDaggerRun() *cobra.Command {
	var (
		f                                 daemonFlags
		bf                                daggerBuildFlags
		checkout, evidence, bundle, chart string
		keep, noBundle                    bool
		calls                             []string
	)
	c := &cobra.Command{
		Use:   "run",
		Short: "Run the README's dagger call commands from a fresh clone against the built engine on the private daemon",
		Long: `Starts the private daemon (--dir, --netns), a registry in its namespace holding the module's
images (rehearse module-images) and the lab's bundle (rehearse images), the Go proxy tree and the
engine (rehearse dagger build), clones --checkout's HEAD afresh and runs there, in the namespace,
the README's commands: lab-test (cold, then warm), check-reports, quick-test, check-reports. The
module options a runner without internet access needs (--goproxy, --gosumdb=off, --charts, and
--versions naming the built node image by its served digest) are added before the function; the
report (` + daggerrun.ReportFile + `), every call's log and the exported reports go to --evidence.
Everything started is stopped again, in reverse order, unless --keep. Needs root.`,
		Example: `  sudo bin/rehearse dagger run --evidence ./dagger-evidence`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if evidence == "" {
				return fmt.Errorf("--evidence is required: the directory for the run's report, logs and reports")
			}
			o, err := bf.options(cmd)
			if err != nil {
				return err
			}
			root, err := cache.Root()
			if err != nil {
				return err
			}
			selected, err := daggerrun.Select(calls)
			if err != nil {
				return err
			}
			rep, err := daggerrun.Run(cmd.Context(), daggerrun.Options{
				Checkout: checkout, Evidence: evidence, DaemonDir: f.dir, Netns: f.netns,
				Cache: root, Dagger: o.Layout,
				Bundle: cmp.Or(bundle, filepath.Join(root, "bundle")), Charts: cmp.Or(chart, rehrun.DefaultChartsDir(root)),
				Calls: selected, NoBundle: noBundle, Keep: keep, Log: progressLog(cmd.ErrOrStderr()),
			})
			fmt.Fprint(cmd.OutOrStdout(), rep.Markdown())
			return err
		},
	}
	f.register(c, true)
	bf.register(c)
	fl := c.Flags()
	fl.StringVar(&checkout, "checkout", ".", "the gpu-lab repository whose HEAD is cloned and run")
	fl.StringVar(&evidence, "evidence", "", "directory for the report, the calls' logs and the reports they exported")
	fl.StringVar(&bundle, "bundle", "", "the lab's image bundle (default <cache>/bundle, where rehearse images writes it)")
	fl.StringVar(&chart, "charts", "", "the lab's chart archives (default <cache>/charts, where rehearse charts writes them)")
	fl.StringSliceVar(&calls, "calls", nil, "calls to run, by name, in this order (default the README's: lab-test-cold, "+
		"check-reports-cold, lab-test-warm, check-reports-warm, quick-test, check-quick-reports; probes: functions, "+
		"lab-plan; check, what both CI recipes run first)")
	fl.BoolVar(&noBundle, "no-bundle", false, "go on without the lab's bundle (probing the module while its images are still being built)")
	fl.BoolVar(&keep, "keep", false, "leave the daemon, registry, Go proxy and engine running")
	return c
}
