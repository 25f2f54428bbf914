package images

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// ChartsDir is where a bundle keeps the chart archives, inside its directory.
const ChartsDir = "charts"

// Chart is a helm chart the lab installs, at its pinned version.
type Chart struct {
	Name    string `json:"name"`
	Repo    string `json:"repo"`
	Version string `json:"version"`
}

// ChartEntry is one chart archive of a bundle.
type ChartEntry struct {
	Chart
	// File is the archive, relative to the bundle's ChartsDir.
	File string `json:"file"`
}

// ChartPuller fetches a chart archive from its repository into dest
// (ci/internal/helm CLI: `helm pull NAME --repo REPO --version V --destination dest`).
type ChartPuller interface {
	PullChart(ctx context.Context, name, repo, version, dest string) error
}

// ChartArchiveName is the file a bundle keeps a chart in. helm pull names
// the archive after the repository's URL (helm v3.19.0
// pkg/downloader/chart_downloader.go DownloadTo: filepath.Base of the
// chart's URL), which a repository may spell as it likes; the bundle
// renames it.
func ChartArchiveName(c Chart) string { return c.Name + "-" + c.Version + ".tgz" }

// SaveCharts pulls every chart into dir/ChartsDir and returns their
// entries. Each archive is checked to hold the chart and version asked for.
func SaveCharts(ctx context.Context, p ChartPuller, charts []Chart, dir string, log *slog.Logger) ([]ChartEntry, error) {
	cdir := filepath.Join(dir, ChartsDir)
	if err := os.MkdirAll(cdir, 0o755); err != nil {
		return nil, fmt.Errorf("chart bundle %s: %w", cdir, err)
	}
	var out []ChartEntry
	for _, c := range charts {
		e, err := saveChart(ctx, p, c, cdir)
		if err != nil {
			return out, err
		}
		attrs := []any{"chart", c.Name, "version", c.Version, "file", e.File}
		if c.Name == KamajiChartName {
			// Which kamaji-etcd this copy of the floating chart carries
			// (its images are pinned; checkChartArchive checked it).
			if sub, err := CheckKamajiEtcd(filepath.Join(cdir, e.File)); err == nil {
				attrs = append(attrs, "kamaji-etcd", sub.Version)
			}
		}
		log.Info("saved chart", attrs...)
		out = append(out, e)
	}
	return out, nil
}

func saveChart(ctx context.Context, p ChartPuller, c Chart, cdir string) (ChartEntry, error) {
	what := fmt.Sprintf("chart %s %s from %s", c.Name, c.Version, c.Repo)
	tmp, err := os.MkdirTemp(cdir, ".pull-")
	if err != nil {
		return ChartEntry{}, fmt.Errorf("%s: %w", what, err)
	}
	defer os.RemoveAll(tmp)
	if err := p.PullChart(ctx, c.Name, c.Repo, c.Version, tmp); err != nil {
		return ChartEntry{}, fmt.Errorf("%s: %w", what, err)
	}
	pulled, err := filepath.Glob(filepath.Join(tmp, "*.tgz"))
	if err != nil || len(pulled) != 1 {
		return ChartEntry{}, fmt.Errorf("%s: helm pull left %d archives (%v), want one", what, len(pulled), pulled)
	}
	if err := checkChartArchive(pulled[0], c); err != nil {
		return ChartEntry{}, fmt.Errorf("%s: %w", what, err)
	}
	e := ChartEntry{Chart: c, File: ChartArchiveName(c)}
	if err := os.Rename(pulled[0], filepath.Join(cdir, e.File)); err != nil {
		return ChartEntry{}, fmt.Errorf("%s: %w", what, err)
	}
	return e, nil
}

// ChartMeta is what the lab reads of an archive's Chart.yaml.
type ChartMeta struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// ReadChartArchive reads NAME/Chart.yaml of a chart archive: helm package
// writes the chart's files under a top directory named after the chart
// (helm v3.19.0 pkg/chartutil/save.go writeTarContents: base = chart name,
// Chart.yaml first), and helm install loads it from there.
func ReadChartArchive(archive string) (ChartMeta, error) {
	f, err := os.Open(archive)
	if err != nil {
		return ChartMeta{}, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return ChartMeta{}, fmt.Errorf("chart archive %s: %w", filepath.Base(archive), err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return ChartMeta{}, fmt.Errorf("chart archive %s: no Chart.yaml under its top directory", filepath.Base(archive))
		}
		if err != nil {
			return ChartMeta{}, fmt.Errorf("chart archive %s: %w", filepath.Base(archive), err)
		}
		dir, file := path.Split(strings.TrimPrefix(h.Name, "./"))
		if file != "Chart.yaml" || strings.Count(dir, "/") != 1 {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(tr, 1<<20))
		if err != nil {
			return ChartMeta{}, fmt.Errorf("chart archive %s: %w", filepath.Base(archive), err)
		}
		var m ChartMeta
		if err := yaml.Unmarshal(b, &m); err != nil {
			return ChartMeta{}, fmt.Errorf("chart archive %s: %s: %w", filepath.Base(archive), h.Name, err)
		}
		return m, nil
	}
}

// sameVersion compares chart versions as helm's --version does for an
// exact version: semver, where a leading "v" does not count (cert-manager
// publishes v1.18.3, most charts 2.10.0).
func sameVersion(a, b string) bool {
	return strings.TrimPrefix(a, "v") == strings.TrimPrefix(b, "v")
}

func checkChartArchive(archive string, c Chart) error {
	m, err := ReadChartArchive(archive)
	if err != nil {
		return err
	}
	if m.Name != c.Name || !sameVersion(m.Version, c.Version) {
		return fmt.Errorf("archive %s holds chart %s %s, want %s %s", filepath.Base(archive), m.Name, m.Version, c.Name, c.Version)
	}
	if c.Name == KamajiChartName {
		// The lab pins kamaji-etcd's images by value; the subchart this
		// archive carries must still read those values, or the install
		// would ask for images neither the list nor the bundle names.
		if _, err := CheckKamajiEtcd(archive); err != nil {
			return err
		}
	}
	return nil
}

// ChartArchives maps each chart the lab installs to its archive in the
// bundle in dir (an absolute path, for helm). A chart the bundle lacks is
// listed in missing (helm fetches it from its repository); an archive at
// another version than the lab pins, or not holding what the index says,
// is an error: installing it would quietly change the lab.
func ChartArchives(dir string, idx Index, want []Chart) (archives map[string]string, missing []string, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	archives = map[string]string{}
	for _, c := range want {
		var found *ChartEntry
		for i := range idx.Charts {
			if idx.Charts[i].Name == c.Name {
				found = &idx.Charts[i]
				break
			}
		}
		if found == nil {
			missing = append(missing, c.Name+" "+c.Version)
			continue
		}
		if !sameVersion(found.Version, c.Version) {
			return nil, nil, fmt.Errorf("chart bundle %s: holds chart %s %s, "+
				"the lab pins %s (re-create it with `labctl images save`)", dir, c.Name, found.Version, c.Version)
		}
		p := filepath.Join(abs, ChartsDir, found.File)
		if err := checkChartArchive(p, c); err != nil {
			return nil, nil, fmt.Errorf("chart bundle %s: %w", dir, err)
		}
		archives[c.Name] = p
	}
	return archives, missing, nil
}
