package images

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// KamajiChartName is the chart clastix/kamaji (Chart.yaml name at
// 26.8.2-edge); its archive carries the kamaji-etcd subchart.
const KamajiChartName = "kamaji"

// KamajiEtcdSubchart is the name under which Kamaji's chart depends on
// kamaji-etcd, and so the key its values go under: kamaji 26.8.2-edge
// charts/kamaji/Chart.yaml:21-25 (dependency kamaji-etcd, version
// ">=0.15.0", no alias, condition kamaji-etcd.deploy).
const KamajiEtcdSubchart = "kamaji-etcd"

// ImageValue is one image of the kamaji-etcd subchart: the value keys that
// name its repository and tag, and what the lab pins them to.
type ImageValue struct {
	RepositoryKey, TagKey, PullPolicyKey string
	Repository, Tag                      string
}

// Ref is repository:tag, as the subchart's templates print it.
func (v ImageValue) Ref() string { return v.Repository + ":" + v.Tag }

// The kamaji-etcd images, pinned. Kamaji's chart 0.0.0+latest floats its
// kamaji-etcd dependency (>=0.15.0; the chart is republished on every push
// with the newest subchart), so what the subchart would pick by default
// depends on the day the chart was fetched — and for kubectl on the
// management cluster's version. The lab sets every one of them at install
// (KamajiEtcdSet), so `labctl images`, a bundle and the install agree
// whichever kamaji-etcd the fetched chart carries; CheckKamajiEtcd makes
// sure the subchart in a chart archive still reads those values.
//
// Value names and defaults: kamaji-etcd v0.17.0 (commit 92f31f0;
// templates and value names unchanged since v0.15.0).
var (
	// etcdServer: the StatefulSet's etcd, charts/kamaji-etcd/values.yaml:15-21
	// (image.repository quay.io/coreos/etcd, image.tag "", pullPolicy
	// IfNotPresent); templates/_helpers.tpl:34-36 makes an empty tag
	// v<appVersion>, Chart.yaml appVersion "3.6.12" → v3.6.12.
	etcdServer = ImageValue{RepositoryKey: "image.repository", TagKey: "image.tag", PullPolicyKey: "image.pullPolicy",
		Repository: "quay.io/coreos/etcd", Tag: "v3.6.12"}
	// etcdJobs: the etcd-client container of the setup Job,
	// values.yaml:222-225 (jobs.etcd.image quay.io/coreos/etcd, tag v3.5.6,
	// pullPolicy IfNotPresent), templates/etcd_job_preinstall_2.yaml:54-55.
	etcdJobs = ImageValue{RepositoryKey: "jobs.etcd.image", TagKey: "jobs.etcd.tag", PullPolicyKey: "jobs.etcd.pullPolicy",
		Repository: "quay.io/coreos/etcd", Tag: "v3.5.6"}
	// etcdKubectl: the kubectl container of the setup Job,
	// values.yaml:219-221 (jobs.kubectl.image clastix/kubectl, tag "").
	// templates/etcd_job_preinstall_2.yaml:26 uses the tag, or when empty
	// etcd.jobsTagKubeVersion (_helpers.tpl:172-174: v<major>.<minor> of the
	// cluster): on kind v0.33.0's default v1.37.0 node clastix/kubectl:v1.37,
	// a tag nothing public shows to exist; clastix has published a minor's
	// tag late before (kamaji-etcd issue 5: v1.25 not found; kamaji issue
	// 401: v1.29 not found, from this same Job). The Job's kubectl only runs
	// `kubectl rollout status sts/<name> --timeout=300s` (line 30) against the
	// cluster, so any recent kubectl does (Kubernetes' skew policy supports
	// kubectl one minor from the API server; rollout status reads only the
	// GA apps/v1 StatefulSet). The tag pinned is one a public configuration
	// pins by digest: see EtcdKubectlEvidence.
	etcdKubectl = ImageValue{RepositoryKey: "jobs.kubectl.image", TagKey: "jobs.kubectl.tag",
		Repository: "clastix/kubectl", Tag: "v1.35"}
)

// kamaji-etcd's other images are not rendered in Kamaji's release: jobs.cfssl
// (cfssl/cfssl:latest, templates/etcd_job_preinstall_1.yaml:1,22) only with
// selfSignedCertificates.enabled, and the pre-delete teardown Job
// (etcd_job_postdelete.yaml:1) only without certManager.enabled; Kamaji's
// values turn the first off and the second on (kamaji 26.8.2-edge
// charts/kamaji/values.yaml:107-110). Both would use jobs.kubectl, pinned
// above, too.

// etcdKubectlEvidence is where the pinned kubectl tag is shown to exist.
const etcdKubectlEvidence = "github.com/defn/other kernel/catalog/mirrors.cue:55-59 at commit 974ca2e9e8dc (2026-05-25; " +
	"m/kernel/catalog/mirrors.cue from 0ef3a678897d): " +
	"docker.io/clastix/kubectl tag v1.35 digest sha256:245d1a9020b8b1369918cede56087e1ea42f69d3bf05c2ebd37afead56c0300c, " +
	"a mirror lockfile (its comment: each entry's digest from `crane digest`); " +
	"no public configuration found names clastix/kubectl:v1.36 or :v1.37"

// etcdImages are the kamaji-etcd images the lab pins, in the order the
// subchart's values.yaml lists them.
func etcdImages() []ImageValue { return []ImageValue{etcdServer, etcdKubectl, etcdJobs} }

// KamajiEtcdSet are the --set values of Kamaji's release that pin every
// kamaji-etcd image: each subchart value under the subchart's key.
func KamajiEtcdSet() []string {
	var out []string
	for _, v := range etcdImages() {
		out = append(out,
			KamajiEtcdSubchart+"."+v.RepositoryKey+"="+v.Repository,
			KamajiEtcdSubchart+"."+v.TagKey+"="+v.Tag)
		if v.PullPolicyKey != "" {
			out = append(out, KamajiEtcdSubchart+"."+v.PullPolicyKey+"=IfNotPresent")
		}
	}
	return out
}

// KamajiEtcdChart is what a Kamaji chart archive says of the kamaji-etcd
// it carries.
type KamajiEtcdChart struct {
	Version    string `json:"version"`
	AppVersion string `json:"appVersion"`
}

// CheckKamajiEtcd reads the kamaji-etcd subchart inside a Kamaji chart
// archive and checks that its values.yaml still has every value the lab
// pins: a value the subchart no longer has would be set and never read,
// and the chart would ask for an image the bundle lacks.
//
// helm package writes a dependency expanded, under
// NAME/charts/DEPENDENCY/ (helm v3.19.0 pkg/chartutil/save.go:229-234
// writeTarContents of each dependency, its Chart.yaml at :176 and
// values.yaml at :195-201).
func CheckKamajiEtcd(archive string) (KamajiEtcdChart, error) {
	what := "chart archive " + filepath.Base(archive)
	dir := KamajiChartName + "/charts/" + KamajiEtcdSubchart + "/"
	files, err := readArchiveFiles(archive, dir+"Chart.yaml", dir+"values.yaml")
	if err != nil {
		return KamajiEtcdChart{}, fmt.Errorf("%s: %w", what, err)
	}
	meta, values := files[dir+"Chart.yaml"], files[dir+"values.yaml"]
	if meta == nil {
		return KamajiEtcdChart{}, fmt.Errorf("%s: no %sChart.yaml: the chart carries no kamaji-etcd, "+
			"whose images the lab pins (fetch the chart again with `labctl images save`)", what, dir)
	}
	var c KamajiEtcdChart
	if err := yaml.Unmarshal(meta, &c); err != nil {
		return KamajiEtcdChart{}, fmt.Errorf("%s: %sChart.yaml: %w", what, dir, err)
	}
	var v map[string]any
	if err := yaml.Unmarshal(values, &v); err != nil {
		return c, fmt.Errorf("%s: %svalues.yaml: %w", what, dir, err)
	}
	var missing []string
	for _, iv := range etcdImages() {
		for _, k := range []string{iv.RepositoryKey, iv.TagKey, iv.PullPolicyKey} {
			if k != "" && !hasValue(v, k) {
				missing = append(missing, k)
			}
		}
	}
	if len(missing) > 0 {
		return c, fmt.Errorf("%s: kamaji-etcd %s has no value %s (kamaji-etcd v0.17.0 charts/kamaji-etcd/values.yaml names them): "+
			"the lab's pins of its images would not be read; check the new subchart's values and update ci/images kamajietcd.go",
			what, c.Version, strings.Join(missing, ", "))
	}
	return c, nil
}

// hasValue reports whether the dotted key is present in values (with any
// value, "" included).
func hasValue(values map[string]any, key string) bool {
	cur := values
	parts := strings.Split(key, ".")
	for i, p := range parts {
		x, ok := cur[p]
		if !ok {
			return false
		}
		if i == len(parts)-1 {
			return true
		}
		if cur, ok = x.(map[string]any); !ok {
			return false
		}
	}
	return false
}

// readArchiveFiles returns the named files of a gzip tar archive (nil for
// one it lacks).
func readArchiveFiles(archive string, names ...string) (map[string][]byte, error) {
	f, err := os.Open(archive)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string][]byte{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		name := strings.TrimPrefix(h.Name, "./")
		if !want[name] {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(tr, 1<<20))
		if err != nil {
			return nil, err
		}
		out[name] = b
	}
}
