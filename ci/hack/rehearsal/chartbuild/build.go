package chartbuild

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/atomicfile"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/preflight"
	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// Options say what to make and from where.
type Options struct {
	// Out receives the archives, named as a bundle names them
	// (images.ChartArchiveName).
	Out string
	// Root is the rehearsal cache: helm is built into it and the helm
	// commands' log is kept there (LogPath). Helm, when set, is a helm
	// v3.19.0 binary to use instead of building one.
	Root, Helm string
	// Snapshots are the upstream repositories' git directories.
	Snapshots Snapshots
	Charts    []images.Chart
	Versions  lab.Versions
	Log       *slog.Logger
}

// Made is one chart archive made.
type Made struct {
	Recipe Recipe
	// Commit is the upstream commit the chart was made from.
	Commit string
	// Archive is the file in Out.
	Archive string
	// KamajiEtcd is the kamaji-etcd resolved into Kamaji's chart.
	KamajiEtcd *EtcdRelease
	Took       time.Duration
}

// Recipes maps every chart of o to its recipe and checks, before anything
// runs, that a git directory is given for each repository they need and
// that the programs the build runs are there (Prerequisites).
func (o Options) Recipes() ([]Recipe, error) {
	var rs []Recipe
	for _, c := range o.Charts {
		r, err := recipeFor(c, o.Versions)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	if miss := o.Snapshots.missing(repos(rs)); len(miss) > 0 {
		return nil, fmt.Errorf("no git directory of %s: pass --git-dir OWNER/NAME=DIR for each (a clone or snapshot holding the tags)",
			strings.Join(miss, ", "))
	}
	if err := prerequisites(o.Helm == ""); err != nil {
		return nil, err
	}
	return rs, nil
}

// prerequisites checks the programs `rehearse charts` runs: git, and go
// when helm is to be built (BuildHelm).
func prerequisites(buildHelm bool) error {
	tools := []preflight.Tool{preflight.Git}
	if buildHelm {
		tools = append(tools, preflight.Go)
	}
	// nothing here waits: the tools are looked up, no daemon is asked
	return preflight.Run(context.Background(), "rehearse charts", preflight.Tools(exec.LookPath, tools...))
}

// checkSources checks every recipe's git directory against its pin before
// any chart is made (buildOne checks again as it extracts).
func checkSources(ctx context.Context, o Options, rs []Recipe) error {
	for _, r := range rs {
		if _, err := o.Snapshots.check(ctx, r.snapshot()); err != nil {
			return fmt.Errorf("chart %s %s: %w", r.Chart.Name, r.Chart.Version, err)
		}
	}
	return nil
}

// Build makes every chart of o into o.Out: the chart's files at its pinned
// commit (extracted into a temporary directory), the upstream publish step
// repeated, `helm package`, and a check that the archive holds the chart
// and version the lab pins (what `rehearse run --charts` will check too).
// The helm commands' output is logged to LogPath(o.Out).
func Build(ctx context.Context, o Options) ([]Made, error) {
	rs, err := o.Recipes()
	if err != nil {
		return nil, err
	}
	if o.Root == "" || o.Out == "" {
		return nil, fmt.Errorf("chartbuild: Options need Out and Root (the rehearsal cache, cache.Root)")
	}
	if err := checkSources(ctx, o, rs); err != nil {
		return nil, err
	}
	helmBin := o.Helm
	if helmBin == "" {
		if helmBin, err = BuildHelm(ctx, o.Log, o.Root); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("chart directory %s: %w", o.Out, err)
	}
	work, err := os.MkdirTemp("", "gpu-lab-charts-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	logf, err := os.Create(logPath(o.Root))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	var made []Made
	for i, r := range rs {
		start := time.Now()
		h := Helm{Binary: helmBin, Home: filepath.Join(work, fmt.Sprintf("%d-helm", i)), Log: logf}
		m, err := buildOne(ctx, o, h, r, filepath.Join(work, fmt.Sprintf("%d-%s", i, r.Chart.Name)))
		if err != nil {
			return made, fmt.Errorf("chart %s %s from %s %s: %w (helm's output: %s)", r.Chart.Name, r.Chart.Version, r.Repo, r.Ref, err,
				logPath(o.Root))
		}
		m.Took = time.Since(start)
		attrs := []any{"chart", r.Chart.Name, "version", r.Chart.Version, "from", r.Repo + "@" + r.Ref, "commit", m.Commit, "archive", m.Archive,
			"took", m.Took.Round(time.Millisecond).String()}
		if m.KamajiEtcd != nil {
			attrs = append(attrs, "kamaji-etcd", m.KamajiEtcd.Version)
		}
		o.Log.Info("made chart", attrs...)
		made = append(made, m)
	}
	return made, nil
}

// logPath is where Build logs helm's commands and output.
func logPath(root string) string { return filepath.Join(root, "charts.log") }

func buildOne(ctx context.Context, o Options, h Helm, r Recipe, work string) (Made, error) {
	gitDir, err := o.Snapshots.dir(r.Repo)
	if err != nil {
		return Made{}, err
	}
	if _, err := o.Snapshots.check(ctx, r.snapshot()); err != nil {
		return Made{}, err
	}
	m := Made{Recipe: r, Commit: r.Commit}
	var dir string
	var flags []string
	switch r.Kind {
	case kindHAMi:
		dir, err = makeHAMi(ctx, r, gitDir, work)
	case kindCertManager:
		dir, flags, err = makeCertManager(ctx, r, gitDir, work)
	case kindKamaji:
		var etcd EtcdRelease
		dir, etcd, err = makeKamaji(ctx, o.Log, h, r, o.Snapshots, work)
		m.KamajiEtcd = &etcd
	default:
		err = fmt.Errorf("no recipe of kind %q", r.Kind)
	}
	if err != nil {
		return m, err
	}
	dest := filepath.Join(work, "package")
	if _, err := h.Run(ctx, work, append([]string{"package", dir, "--destination", dest}, flags...)...); err != nil {
		return m, err
	}
	pkgs, err := filepath.Glob(filepath.Join(dest, "*.tgz"))
	if err != nil || len(pkgs) != 1 {
		return m, fmt.Errorf("helm package wrote %v into %s, want one archive (%v)", pkgs, dest, err)
	}
	if err := checkArchive(pkgs[0], r.Chart); err != nil {
		return m, err
	}
	if m.KamajiEtcd != nil {
		sub, err := images.CheckKamajiEtcd(pkgs[0])
		if err != nil {
			return m, err
		}
		if sub.Version != m.KamajiEtcd.Version {
			return m, fmt.Errorf("the kamaji archive carries kamaji-etcd %s, %s was resolved", sub.Version, m.KamajiEtcd.Version)
		}
	}
	m.Archive = filepath.Join(o.Out, images.ChartArchiveName(r.Chart))
	if err := moveFile(pkgs[0], m.Archive); err != nil {
		return m, err
	}
	return m, nil
}

// checkArchive fails unless archive holds chart c at its version, read as
// `rehearse run --charts` reads it (images.ReadChartArchive).
func checkArchive(archive string, c images.Chart) error {
	m, err := images.ReadChartArchive(archive)
	if err != nil {
		return err
	}
	if m.Name != c.Name || m.Version != c.Version {
		return fmt.Errorf("%s holds chart %s %s, the lab pins %s %s", filepath.Base(archive), m.Name, m.Version, c.Name, c.Version)
	}
	return nil
}

// moveFile renames src to dst, copying across file systems (the temporary
// directory may be elsewhere than the cache) through an O_EXCL temporary
// file (atomicfile); dst appears whole or not.
func moveFile(src, dst string) error {
	if err := os.Rename(src, dst); err == nil {
		return nil
	}
	return atomicfile.Copy(src, dst, 0o644)
}
