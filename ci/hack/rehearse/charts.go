package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/chartbuild"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
	rehrun "github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/run"
	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
	"github.com/gpu-lab/gpu-lab/ci/stages"
)

// chartsFlags are `rehearse charts`'s flags.
type chartsFlags struct {
	file, out, helm, labctl string
	gitDirs                 []string
	cacheDir                cacheFlag
}

// chartsLong is `rehearse charts --help`'s text.
const chartsLong = `Make HAMi's, Kamaji's and cert-manager's charts at the versions the lab pins from git directories
of their repositories — no chart repository is reached: each chart's files at its tag (git archive),
the upstream publish step repeated (HAMi's charts/Makefile, the helm-gh-pages action of Kamaji and
kamaji-etcd with kamaji-etcd resolved into Kamaji's chart, cert-manager's make/manifests.mk), and
helm v3.19.0 — built once through the Go module proxy into the rehearsal cache — packages each into
--out under the name a bundle keeps it by. Kamaji's floating chart 0.0.0+latest is made at the tag
of the pinned Kamaji image, with the newest kamaji-etcd its constraint allows that was released
before that commit. Then each archive is rendered with ` + "`helm template`" + ` and the values labctl up installs
it with (HAMi's post-renderer is a labctl: --labctl, or one built from this checkout into
<cache>/bin/labctl), and every value the lab sets that the chart's values.yaml lacks is listed.`

// newChartsCommand is `rehearse charts`.
func newChartsCommand() *cobra.Command {
	var f chartsFlags
	cmd := &cobra.Command{
		Use:   "charts",
		Short: "Make the lab's three helm charts from their pinned upstream tags, for `rehearse run --charts`",
		Long:  chartsLong,
		Example: `  rehearse charts --git-dir Project-HAMi/HAMi=/path/HAMi.git --git-dir clastix/kamaji=/path/kamaji.git \
    --git-dir clastix/kamaji-etcd=/path/kamaji-etcd.git --git-dir cert-manager/cert-manager=/path/cert-manager.git
  sudo rehearse run --charts ~/.cache/gpu-lab/rehearsal/charts`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCharts(cmd.Context(), streams{out: cmd.OutOrStdout(), errOut: cmd.ErrOrStderr()}, &f)
		},
	}
	f.bind(cmd.Flags())
	return cmd
}

// bind adds `rehearse charts`'s flags to fs.
func (f *chartsFlags) bind(fs *pflag.FlagSet) {
	fs.StringVarP(&f.file, "file", "f", "",
		"lab file (YAML or JSON) whose pinned chart versions to make; empty means the embedded seed lab")
	fs.StringVar(&f.out, "out", "",
		"directory to write the chart archives into (default <cache>/charts, where rehearse run --charts looks)")
	f.cacheDir.register(fs, "; helm is built into it")
	fs.StringVar(&f.helm, "helm", "", "a helm v3.19.0 binary to use instead of building one")
	fs.StringVar(&f.labctl, "labctl", "", "a labctl binary, HAMi's post-renderer when the charts are rendered "+
		"(default: build it from this checkout into <cache>/bin/labctl)")
	fs.StringArrayVar(&f.gitDirs, "git-dir", nil, "OWNER/NAME=DIR: a git directory (clone or snapshot with tags) "+
		"of an upstream repository; needed: "+
		strings.Join([]string{chartbuild.HAMiRepo, chartbuild.KamajiRepo, chartbuild.KamajiEtcdRepo, chartbuild.CertManagerRepo}, ", "))
}

// runCharts is `rehearse charts` once its flags are parsed: it makes the
// charts, lists them and renders each with the lab's values.
func runCharts(ctx context.Context, s streams, f *chartsFlags) error {
	l, err := lab.Load(f.file)
	if err != nil {
		return err
	}
	snaps, err := chartbuild.ParseGitDirs(f.gitDirs)
	if err != nil {
		return err
	}
	root, err := f.cacheDir.dir()
	if err != nil {
		return err
	}
	if f.out == "" {
		f.out = rehrun.DefaultChartsDir(root)
	}
	log := progressLog(s.errOut)
	o := chartbuild.Options{Out: f.out, Root: root, Helm: f.helm, Snapshots: snaps,
		Charts: images.PinnedCharts(l), Versions: l.Versions, Log: log}
	if _, err := o.Recipes(); err != nil {
		return err
	}
	if o.Helm == "" {
		if o.Helm, err = chartbuild.BuildHelm(ctx, log, root); err != nil {
			return err
		}
	}
	made, err := chartbuild.Build(ctx, o)
	if err != nil {
		return err
	}
	w := s.out
	printMadeCharts(w, made)
	if f.labctl == "" {
		f.labctl = filepath.Join(root, "bin", "labctl")
		if err := hostdaemon.BuildStatic(ctx, log, labctlPackage, "labctl", f.labctl, hostdaemon.StampCommit); err != nil {
			return err
		}
	}
	return verifyCharts(ctx, w, l, o.Helm, f.labctl, made)
}

// printMadeCharts lists each archive made with the chart, version and the
// upstream commit it was made from (and the kamaji-etcd resolved into it).
func printMadeCharts(w io.Writer, made []chartbuild.Made) {
	for _, m := range made {
		fmt.Fprintf(w, "%s  %s %s from %s@%s (%s)",
			m.Archive, m.Recipe.Chart.Name, m.Recipe.Chart.Version, m.Recipe.Repo, m.Recipe.Ref, shortSHA(m.Commit))
		if m.KamajiEtcd != nil {
			fmt.Fprintf(w, ", kamaji-etcd %s from %s@%s", m.KamajiEtcd.Version, chartbuild.KamajiEtcdRepo, m.KamajiEtcd.Tag)
		}
		fmt.Fprintln(w)
	}
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// labChartValues are the values labctl up installs each chart with: the
// stages' own --set lists and HAMi's rendered values file and
// post-renderer (the labctl binary given), for the lab's first tenant.
func labChartValues(l *lab.Lab, labctl, dir string) (map[string]chartbuild.Values, error) {
	cm := stages.CertManagerChart(l, 0)
	km := stages.KamajiChart(l, 0)
	vals := map[string]chartbuild.Values{
		images.CertManagerChartName: {Set: cm.Set},
		images.KamajiChartName:      {Set: km.Set},
		render.HAMiChartName:        {},
	}
	if len(l.Tenants) == 0 {
		return vals, nil
	}
	v, err := render.HAMiValuesFor(l, l.Tenants[0].Name)
	if err != nil {
		return nil, err
	}
	y, err := yaml.Marshal(v)
	if err != nil {
		return nil, err
	}
	cfg, err := render.HAMiSchedulerConfig(l, render.ChartPlace())
	if err != nil {
		return nil, err
	}
	cfgFile := filepath.Join(dir, "hami-scheduler-config.yaml")
	if err := os.WriteFile(cfgFile, cfg, 0o644); err != nil {
		return nil, err
	}
	hc := stages.HAMiChart(l, "", labctl, cfgFile, 0)
	vals[render.HAMiChartName] = chartbuild.Values{Set: hc.Set, File: y, PostRenderer: hc.PostRenderer}
	return vals, nil
}

// verifyCharts renders every archive made with `helm template` and the
// lab's values, and lists each value the lab sets that a chart lacks.
func verifyCharts(ctx context.Context, w io.Writer, l *lab.Lab, helmBin, labctl string, made []chartbuild.Made) error {
	dir, err := os.MkdirTemp("", "gpu-lab-chart-verify-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	vals, err := labChartValues(l, labctl, dir)
	if err != nil {
		return fmt.Errorf("the lab's chart values: %w", err)
	}
	h := chartbuild.Helm{Binary: helmBin, Home: filepath.Join(dir, "helm")}
	release := map[string][2]string{
		images.CertManagerChartName: {stages.CertManagerRelease, stages.CertManagerNS},
		images.KamajiChartName:      {stages.KamajiRelease, stages.KamajiNamespace},
		render.HAMiChartName:        {render.HAMiRelease, render.HAMiNamespace},
	}
	var failed []string
	fmt.Fprintln(w, "\nhelm template with the values labctl up installs each chart with:")
	for _, m := range made {
		name := m.Recipe.Chart.Name
		v := vals[name]
		sub := filepath.Join(dir, name)
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return err
		}
		rendered, err := chartbuild.Template(ctx, h, m.Archive, release[name][0], release[name][1], v, sub)
		if err != nil {
			failed = append(failed, name)
			fmt.Fprintf(w, "  %s: FAILED: %v\n", name, err)
			continue
		}
		c, err := chartbuild.ReadChart(m.Archive)
		if err != nil {
			return err
		}
		paths, err := v.Paths()
		if err != nil {
			return err
		}
		unknown := chartbuild.UnknownValues(c, paths)
		fmt.Fprintf(w, "  %s: renders %d objects with %d values set; values the chart lacks: %d\n",
			name, strings.Count("\n"+string(rendered), "\nkind: "), len(paths), len(unknown))
		for _, u := range unknown {
			fmt.Fprintf(w, "    %s\n", u)
		}
	}
	if len(failed) > 0 {
		return errors.New("helm template failed for " + strings.Join(failed, ", ") + " with the lab's values (see above)")
	}
	return nil
}
