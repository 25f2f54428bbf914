package chartbuild

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild"
)

// hamiVersions is what HAMi's charts/Makefile update-versions writes into
// the chart before packaging (HAMi v2.10.0 charts/Makefile:16-31), from
// VERSION (Makefile.defs:16-18: the file VERSION at the repository's
// root): Chart.yaml version and appVersion become the version without its
// "v" (a purely numeric pre-release suffix gets a "g", :27), values.yaml's
// imageTag becomes VERSION itself.
type hamiVersions struct {
	Chart, AppVersion, ImageTag string
}

var numericSuffix = regexp.MustCompile(`^([0-9]+\.[0-9]+\.[0-9]+)-([0-9]+)$`)

// hamiVersionsFor is hamiVersions of a VERSION file's content.
func hamiVersionsFor(version string) hamiVersions {
	version = strings.TrimSpace(version)
	chart := strings.TrimLeft(version, "vV")
	chart = numericSuffix.ReplaceAllString(chart, "${1}-g${2}")
	return hamiVersions{Chart: chart, AppVersion: chart, ImageTag: version}
}

// topLevel reads the value of a top-level key of a YAML file before its
// dependencies section, as update-versions' perl edits only those lines.
func topLevel(yamlText, key string) (string, bool) {
	for _, line := range strings.Split(yamlText, "\n") {
		if strings.HasPrefix(line, "dependencies:") {
			break
		}
		if v, ok := strings.CutPrefix(line, key+": "); ok {
			return strings.Trim(strings.TrimSpace(v), `"`), true
		}
	}
	return "", false
}

// imageTagRe is the line update-versions rewrites in values.yaml
// (charts/Makefile:31: s/imageTag: "*VERSION_REGEX"*/…/g).
var imageTagRe = regexp.MustCompile(`(?m)imageTag: "?([^"\n]*)"?`)

// checkHAMiSource checks that the chart at the tag already says what
// update-versions would write: then packaging the tag's files is exactly
// the release step (and an earlier comparison found the archive equal to
// the published one). A tag where it does not would need the rewrite,
// which this recipe refuses to guess.
func checkHAMiSource(versionFile, chartYAML, valuesYAML string, want string) error {
	v := hamiVersionsFor(versionFile)
	if v.Chart != strings.TrimPrefix(want, "v") {
		return fmt.Errorf("HAMi VERSION %q makes chart version %s, the lab pins %s", strings.TrimSpace(versionFile), v.Chart, want)
	}
	for _, kv := range [][2]string{{"version", v.Chart}, {"appVersion", v.AppVersion}} {
		key, w := kv[0], kv[1]
		got, ok := topLevel(chartYAML, key)
		if !ok || got != w {
			return fmt.Errorf("HAMi charts/hami/Chart.yaml %s is %q, update-versions would write %q: the tag's chart is not the release's "+
				"as committed", key, got, w)
		}
	}
	m := imageTagRe.FindAllStringSubmatch(valuesYAML, -1)
	if len(m) == 0 {
		return fmt.Errorf("HAMi charts/hami/values.yaml has no imageTag, which update-versions sets to %s", v.ImageTag)
	}
	for _, s := range m {
		if s[1] != v.ImageTag {
			return fmt.Errorf("HAMi charts/hami/values.yaml imageTag is %q, update-versions would write %q", s[1], v.ImageTag)
		}
	}
	return nil
}

// makeHAMi extracts charts/hami at the tag into work and returns the chart
// directory to package: HAMi's charts/Makefile `package` then runs `helm
// dependency update` (a no-op: Chart.yaml has no dependencies, and helm
// v3.19.0 pkg/downloader/manager.go:160-163 returns at once) and `helm
// package ./hami` (:44).
func makeHAMi(ctx context.Context, r Recipe, gitDir, work string) (string, error) {
	repo, err := imagebuild.CheckSnapshot(ctx, gitDir, r.snapshot())
	if err != nil {
		return "", err
	}
	src := filepath.Join(work, "src")
	if err := repo.Extract(ctx, r.Commit, src, r.ChartDir); err != nil {
		return "", err
	}
	dir := filepath.Join(src, r.ChartDir)
	version, err := repo.File(ctx, r.Commit, "VERSION")
	if err != nil {
		return "", fmt.Errorf("HAMi %s: the VERSION file update-versions reads: %w", r.Ref, err)
	}
	chartYAML, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return "", err
	}
	values, err := os.ReadFile(filepath.Join(dir, "values.yaml"))
	if err != nil {
		return "", err
	}
	if err := checkHAMiSource(string(version), string(chartYAML), string(values), r.Chart.Version); err != nil {
		return "", fmt.Errorf("HAMi %s: %w", r.Ref, err)
	}
	if strings.Contains(string(chartYAML), "\ndependencies:") {
		return "", fmt.Errorf("HAMi %s charts/hami/Chart.yaml has dependencies, which this recipe does not resolve (add helm dependency update "+
			"as for Kamaji)", r.Ref)
	}
	return dir, nil
}
