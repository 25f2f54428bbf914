package chartbuild

import (
	"strings"
	"testing"
)

func TestHAMiVersionsFor(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want hamiVersions
	}{
		// HAMi v2.10.0's VERSION file: "v2.10.0", no final newline.
		{"v2.10.0", hamiVersions{"2.10.0", "2.10.0", "v2.10.0"}},
		{"v2.10.0\n", hamiVersions{"2.10.0", "2.10.0", "v2.10.0"}},
		// charts/Makefile:27: a git short SHA suffix gets a "g".
		{"v2.9.0-0749842", hamiVersions{"2.9.0-g0749842", "2.9.0-g0749842", "v2.9.0-0749842"}},
		{"v2.9.0-rc1", hamiVersions{"2.9.0-rc1", "2.9.0-rc1", "v2.9.0-rc1"}},
	} {
		if got := hamiVersionsFor(tt.in); got != tt.want {
			t.Errorf("HAMiVersionsFor(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// The lines of HAMi v2.10.0 charts/hami that update-versions rewrites, as
// committed at the tag (Chart.yaml:18,24; values.yaml:12).
const (
	hamiChartLines  = "apiVersion: v2\nname: hami\ntype: application\nversion: 2.10.0\nappVersion: \"2.10.0\"\nkubeVersion: \">= 1.18.0-0\"\n"
	hamiValuesLines = "global:\n  imageRegistry: \"\"\n  imageTag: \"v2.10.0\"\n"
)

func TestCheckHAMiSource(t *testing.T) {
	for _, tt := range []struct {
		name, version, chart, values, want, err string
	}{
		{"the v2.10.0 tag", "v2.10.0", hamiChartLines, hamiValuesLines, "2.10.0", ""},
		{"pinned with a v", "v2.10.0", hamiChartLines, hamiValuesLines, "v2.10.0", ""},
		{"another pin", "v2.10.0", hamiChartLines, hamiValuesLines, "2.9.0", "the lab pins 2.9.0"},
		{"chart not bumped", "v2.10.0", strings.Replace(hamiChartLines, "version: 2.10.0", "version: 2.9.0", 1), hamiValuesLines, "2.10.0",
			"Chart.yaml version"},
		{"appVersion not bumped", "v2.10.0", strings.Replace(hamiChartLines, `appVersion: "2.10.0"`, `appVersion: "2.9.0"`, 1), hamiValuesLines,
			"2.10.0", "Chart.yaml appVersion"},
		{"image tag not bumped", "v2.10.0", hamiChartLines, strings.Replace(hamiValuesLines, "v2.10.0", "v2.9.0", 1), "2.10.0",
			"imageTag is \"v2.9.0\""},
		{"no image tag", "v2.10.0", hamiChartLines, "global: {}\n", "2.10.0", "no imageTag"},
		{"a dependency's version is not the chart's", "v2.10.0", "dependencies:\n- name: x\n  version: 2.10.0\n", hamiValuesLines, "2.10.0",
			"Chart.yaml version"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := checkHAMiSource(tt.version, tt.chart, tt.values, tt.want)
			if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
				t.Errorf("err = %v, want %q", err, tt.err)
			}
		})
	}
}
