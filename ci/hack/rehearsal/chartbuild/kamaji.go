package chartbuild

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gitsnap"
	"github.com/gpu-lab/gpu-lab/ci/images"
)

// kamajiEtcdChartDir is kamaji-etcd's chart in its repository (v0.17.0
// charts/kamaji-etcd/Chart.yaml:2 name kamaji-etcd).
const kamajiEtcdChartDir = "charts/kamaji-etcd"

// dependency is one entry of a Chart.yaml's dependencies.
type dependency struct {
	Name       string `json:"name"`
	Repository string `json:"repository"`
	Version    string `json:"version"`
}

// EtcdRelease is one published kamaji-etcd chart: the tag it was made
// from (its release workflow publishes on every v* tag, kamaji-etcd
// .github/workflows/release.yml:3-6), the chart version at that tag and the
// tag's commit time.
type EtcdRelease struct {
	Tag, Version string
	Time         time.Time
}

// selectKamajiEtcd is the kamaji-etcd `helm dependency update` resolved
// into Kamaji's chart when it was published at cutoff: the newest release
// satisfying the constraint among those published by then (helm picks the
// newest matching version of the repository's index, helm v3.19.0
// internal/resolver/resolver.go:124-190: the index sorted newest first, the first that satisfies). Only ">=X.Y.Z" constraints are
// understood (Kamaji's is ">=0.15.0", 26.8.2-edge charts/kamaji/Chart.yaml:24).
func selectKamajiEtcd(constraint string, releases []EtcdRelease, cutoff time.Time) (EtcdRelease, error) {
	min, ok := strings.CutPrefix(strings.TrimSpace(constraint), ">=")
	if !ok {
		return EtcdRelease{}, fmt.Errorf("kamaji-etcd constraint %q: only >=X.Y.Z is understood", constraint)
	}
	floor, err := version.ParseSemantic(strings.TrimSpace(min))
	if err != nil {
		return EtcdRelease{}, fmt.Errorf("kamaji-etcd constraint %q: %w", constraint, err)
	}
	var best EtcdRelease
	var bestV *version.Version
	for _, r := range releases {
		v, err := version.ParseSemantic(r.Version)
		if err != nil || v.PreRelease() != "" || v.LessThan(floor) || r.Time.After(cutoff) {
			continue
		}
		if bestV == nil || bestV.LessThan(v) {
			best, bestV = r, v
		}
	}
	if bestV == nil {
		return EtcdRelease{}, fmt.Errorf("no kamaji-etcd release %s published by %s (fetch the kamaji-etcd snapshot with its tags)", constraint,
			cutoff.Format(time.RFC3339))
	}
	return best, nil
}

// etcdReleases lists kamaji-etcd's v* tags with the chart version each
// carries. Only the release selected is built, from its pin.
func etcdReleases(ctx context.Context, repo gitsnap.Repo) ([]EtcdRelease, error) {
	tags, err := repo.Tags(ctx)
	if err != nil {
		return nil, err
	}
	var out []EtcdRelease
	for _, t := range tags {
		if !strings.HasPrefix(t, "v") {
			continue
		}
		commit, err := repo.Resolve(ctx, "refs/tags/"+t)
		if err != nil {
			return nil, err
		}
		b, err := repo.File(ctx, commit, kamajiEtcdChartDir+"/Chart.yaml")
		if errors.Is(err, gitsnap.ErrNotFound) {
			continue // an old tag before the chart moved there
		}
		if err != nil {
			return nil, fmt.Errorf("kamaji-etcd %s: %w", t, err)
		}
		var m images.ChartMeta
		if yaml.Unmarshal(b, &m) != nil || m.Name != images.KamajiEtcdSubchart {
			continue
		}
		c, err := repo.Commit(ctx, commit)
		if err != nil {
			return nil, err
		}
		out = append(out, EtcdRelease{Tag: t, Version: m.Version, Time: c.Time})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out, nil
}

// kamajiEtcdDependency reads the kamaji-etcd entry of Kamaji's Chart.yaml.
func kamajiEtcdDependency(chartYAML []byte) (dependency, error) {
	var c struct {
		Dependencies []dependency `json:"dependencies"`
	}
	if err := yaml.Unmarshal(chartYAML, &c); err != nil {
		return dependency{}, fmt.Errorf("kamaji Chart.yaml: %w", err)
	}
	for _, d := range c.Dependencies {
		if d.Name == images.KamajiEtcdSubchart {
			return d, nil
		}
	}
	return dependency{}, errors.New("kamaji Chart.yaml has no kamaji-etcd dependency")
}

// repositoriesYAML is a helm repositories.yaml naming one repository
// (helm v3.19.0 pkg/repo/repo.go:29-33 File: apiVersion, generated,
// repositories of name and url).
func repositoriesYAML(name, url string) []byte {
	return []byte(fmt.Sprintf("apiVersion: \"\"\ngenerated: \"0001-01-01T00:00:00Z\"\nrepositories:\n- name: %s\n  url: %s\n", name, url))
}

// makeKamaji extracts charts/kamaji at the image's tag and resolves its
// kamaji-etcd as the publish step's `helm dependency update` did, without
// a network: the selected kamaji-etcd is packaged from its tag (its own
// publish step is helm-gh-pages too: dependency update, a no-op, and helm
// package), indexed with `helm repo index` and served on loopback, and
// helm is told the repository Kamaji's Chart.yaml names has that index
// (repositories.yaml plus the cached <name>-index.yaml, helm v3.19.0
// pkg/downloader/manager.go:817-835 loadChartRepositories), so `helm
// dependency update --skip-refresh` resolves, downloads and writes
// Chart.lock itself and Chart.yaml stays the published one.
func makeKamaji(ctx context.Context, log *slog.Logger, h Helm, r Recipe, snaps Snapshots, work string) (string, EtcdRelease, error) {
	src, err := kamajiChartSource(ctx, log, r, snaps, work)
	if err != nil {
		return "", EtcdRelease{}, err
	}
	repoDir, err := packageKamajiEtcd(ctx, h, r, src, work)
	if err != nil {
		return "", EtcdRelease{}, err
	}
	if err := resolveKamajiEtcd(ctx, h, r, src, repoDir, work); err != nil {
		return "", EtcdRelease{}, err
	}
	return src.dir, src.etcd, nil
}

// kamajiSource is Kamaji's chart extracted at the image's tag and the
// kamaji-etcd release its dependency resolved to when it was published.
type kamajiSource struct {
	dir     string      // the chart
	dep     dependency  // its kamaji-etcd dependency
	etcd    EtcdRelease // the release selected
	etcdDir string      // kamaji-etcd's git snapshot
}

// kamajiChartSource extracts charts/kamaji at r's commit under work and
// selects the kamaji-etcd release its dependency resolved to at that
// commit's time.
func kamajiChartSource(ctx context.Context, log *slog.Logger, r Recipe, snaps Snapshots, work string) (kamajiSource, error) {
	kamaji, err := snaps.check(ctx, r.snapshot())
	if err != nil {
		return kamajiSource{}, err
	}
	etcdDir, err := snaps.dir(KamajiEtcdRepo)
	if err != nil {
		return kamajiSource{}, err
	}
	etcdRepo, err := gitsnap.Open(etcdDir)
	if err != nil {
		return kamajiSource{}, err
	}
	c, err := kamaji.Commit(ctx, r.Commit)
	if err != nil {
		return kamajiSource{}, err
	}
	commit, cutoff := r.Commit, c.Time
	src := filepath.Join(work, "src")
	if err := kamaji.Extract(ctx, r.Commit, src, r.ChartDir); err != nil {
		return kamajiSource{}, err
	}
	dir := filepath.Join(src, r.ChartDir)
	chartYAML, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return kamajiSource{}, err
	}
	dep, err := kamajiEtcdDependency(chartYAML)
	if err != nil {
		return kamajiSource{}, fmt.Errorf("kamaji %s: %w", r.Ref, err)
	}
	releases, err := etcdReleases(ctx, etcdRepo)
	if err != nil {
		return kamajiSource{}, err
	}
	etcd, err := selectKamajiEtcd(dep.Version, releases, cutoff)
	if err != nil {
		return kamajiSource{}, err
	}
	log.Info("kamaji chart source", "ref", r.Ref, "commit", commit, "committed", cutoff.Format(time.RFC3339),
		"kamaji-etcd", etcd.Version, "kamaji-etcd tag", etcd.Tag, "constraint", dep.Version)
	return kamajiSource{dir: dir, dep: dep, etcd: etcd, etcdDir: etcdDir}, nil
}

// packageKamajiEtcd packages the selected kamaji-etcd chart from its tag
// (its pin) into a repository directory under work, and returns it.
func packageKamajiEtcd(ctx context.Context, h Helm, r Recipe, src kamajiSource, work string) (string, error) {
	pin, err := imagebuild.PinFor(KamajiEtcdRepo, src.etcd.Tag)
	if err != nil {
		return "", fmt.Errorf("kamaji %s: kamaji-etcd %s resolved: %w", r.Ref, src.etcd.Version, err)
	}
	etcdSrc := filepath.Join(work, "etcd-src")
	if err := imagebuild.ExtractSnapshot(ctx, src.etcdDir, pin, etcdSrc, kamajiEtcdChartDir); err != nil {
		return "", err
	}
	repoDir := filepath.Join(work, "repo")
	if _, err := h.Run(ctx, work, "package", filepath.Join(etcdSrc, kamajiEtcdChartDir), "--destination", repoDir); err != nil {
		return "", fmt.Errorf("kamaji-etcd %s: %w", src.etcd.Tag, err)
	}
	return repoDir, nil
}

// resolveKamajiEtcd serves repoDir on loopback, indexed, while `helm
// dependency update --skip-refresh` resolves the chart's kamaji-etcd
// from it: helm is told the repository the chart names has that index.
func resolveKamajiEtcd(ctx context.Context, h Helm, r Recipe, src kamajiSource, repoDir, work string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("serve the kamaji-etcd chart on loopback: %w", err)
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(repoDir)), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	if _, err := h.Run(ctx, work, "repo", "index", repoDir, "--url", "http://"+ln.Addr().String()); err != nil {
		return err
	}
	index, err := os.ReadFile(filepath.Join(repoDir, "index.yaml"))
	if err != nil {
		return err
	}
	const repoName = "clastix" // any name: helm matches the dependency by URL (manager.go:713)
	if err := writeFile(h.repositoryConfig(), repositoriesYAML(repoName, src.dep.Repository)); err != nil {
		return err
	}
	// helmpath.CacheIndexFile(name) = name + "-index.yaml" (pkg/helmpath/home.go:29-35)
	if err := writeFile(filepath.Join(h.repositoryCache(), repoName+"-index.yaml"), index); err != nil {
		return err
	}
	if _, err := h.Run(ctx, work, "dependency", "update", "--skip-refresh", src.dir); err != nil {
		return fmt.Errorf("kamaji %s: resolve kamaji-etcd %s: %w", r.Ref, src.etcd.Version, err)
	}
	return nil
}

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
