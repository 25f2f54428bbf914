package run

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/images"
)

// DefaultChartsDir is where a maintainer keeps the three chart archives
// made once from the pinned upstream tags (outside the repository):
// <cache>/charts, beside the image build's cache and bundle.
func DefaultChartsDir(cacheRoot string) string { return filepath.Join(cacheRoot, "charts") }

// attachCharts puts the lab's charts from chartsDir into the bundle:
// each archive, named as `labctl images save` names it
// (images.ChartArchiveName), is checked to hold the chart and version the
// lab pins, copied into bundle/charts and listed in the bundle's index
// (an entry for the same chart is replaced; images and other charts stay).
func attachCharts(bundle, chartsDir string, want []images.Chart) (images.Index, error) {
	idx, err := images.ReadIndex(bundle)
	if err != nil {
		return idx, err
	}
	dst := filepath.Join(bundle, images.ChartsDir)
	root, err := openDir(dst)
	if err != nil {
		return idx, fmt.Errorf("chart bundle: %w", err)
	}
	defer root.Close()
	var entries []images.ChartEntry
	for _, c := range want {
		name := images.ChartArchiveName(c)
		src := filepath.Join(chartsDir, name)
		m, err := images.ReadChartArchive(src)
		if err != nil {
			return idx, fmt.Errorf("chart %s %s: %w (make it as the rehearsal's maintainer notes say, into %s)", c.Name, c.Version, err, chartsDir)
		}
		if m.Name != c.Name || strings.TrimPrefix(m.Version, "v") != strings.TrimPrefix(c.Version, "v") {
			return idx, fmt.Errorf("chart archive %s holds %s %s, the lab pins %s %s", src, m.Name, m.Version, c.Name, c.Version)
		}
		if err := copyInto(root, src, name); err != nil {
			return idx, fmt.Errorf("chart %s into the bundle: %w", src, err)
		}
		entries = append(entries, images.ChartEntry{Chart: c, File: name})
	}
	idx.Charts = mergeCharts(idx.Charts, entries)
	return idx, images.WriteIndex(bundle, idx)
}

// mergeCharts is old with each of add replacing the entry of the same
// chart name, or appended.
func mergeCharts(old, add []images.ChartEntry) []images.ChartEntry {
	out := append([]images.ChartEntry(nil), old...)
	for _, a := range add {
		replaced := false
		for i := range out {
			if out[i].Name == a.Name {
				out[i], replaced = a, true
				break
			}
		}
		if !replaced {
			out = append(out, a)
		}
	}
	return out
}

// checkBundleCharts fails unless the bundle holds every chart the lab
// installs at its pinned version: inside the namespace no chart
// repository is reachable, so a missing one would fail the stage only
// after minutes.
func checkBundleCharts(bundle string, idx images.Index, want []images.Chart) error {
	_, missing, err := images.ChartArchives(bundle, idx, want)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return fmt.Errorf("the bundle %s holds no chart %s: no chart repository is reachable from the rehearsal's "+
			"namespace; pass --charts DIR holding them", bundle, strings.Join(missing, ", "))
	}
	return nil
}
