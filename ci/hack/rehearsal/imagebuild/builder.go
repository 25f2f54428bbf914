package imagebuild

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/components"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gobuild"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/k8srelease"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/nodeimage"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/rootfs"
)

// Options configure a run.
type Options struct {
	// Root is the cache (cache.Root() when empty).
	Root string
	// Docker is the daemon images are built on and kept in (DOCKER_HOST).
	Docker docker.CLI
	Log    *slog.Logger
	// KindGitDir is a git directory of kubernetes-sigs/kind holding
	// KindnetdCommit (the repository fetch tool's snapshot); without it
	// kindnetd is not built.
	KindGitDir string
	// KubeNetworkPoliciesGitDir is a git directory of kubernetes-sigs/
	// kube-network-policies holding KubeNetworkPoliciesCommit, which
	// kindnetd needs and the module proxy does not serve.
	KubeNetworkPoliciesGitDir string
	// GitDirs are git directories of the repositories built from git
	// snapshots, by GitHub owner/name ("clastix/kamaji"; --git-dir): the
	// module proxy does not serve them at the lab's tags.
	GitDirs map[string]string
	// RuncBinary and NodeExtra are the node images' hook for host
	// adaptations (nodeimage.Inputs).
	RuncBinary string
	NodeExtra  []imagespec.File
	// NodeAdapt makes node images this machine can run pods in: the
	// node's containerd patched by nodeadapt (restrict_oom_score_adj, the
	// runc wrapper as BinaryName) and the wrapper in the image (adapt.go).
	NodeAdapt bool
	// BasesOnly makes only the Debian root file systems and base images
	// (minutes, network-bound; they can run beside the long Go builds).
	BasesOnly bool

	host host // the machine the prerequisites are checked on (tests)
}

// builder is one run's state: what is built so far, by reference.
type builder struct {
	ctx     context.Context
	o       Options
	plan    Plan
	results map[string]*Result
	order   []string
	bins    map[string]binResult
	bases   map[string]baseResult
}

type binResult struct {
	dir string
	err error
}

type baseResult struct {
	ref string
	fs  string
	err error
}

// Build builds (or reuses) every image of the plan — node images first,
// as the longest and most needed — and reports each. It starts nothing
// unless every prerequisite is there (Prerequisites; the report's Stopped
// says what is missing). It goes on past an image that cannot be built
// to those that do not need it; the report names it, why, and its log.
func Build(ctx context.Context, o Options, plan Plan) Report {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if err := prerequisites(ctx, o); err != nil {
		o.Log.Error(err.Error())
		return notStarted(plan, err)
	}
	b := &builder{ctx: ctx, o: o, plan: plan, results: map[string]*Result{}, bins: map[string]binResult{}, bases: map[string]baseResult{}}
	if o.BasesOnly {
		return b.basesOnly()
	}
	for _, n := range plan.Nodes {
		b.node(n)
	}
	for _, r := range append(append([]recipe(nil), plan.Bundle...), plan.Extra...) {
		b.ensure(r.Ref)
	}
	var rep Report
	for _, ref := range b.order {
		rep.Results = append(rep.Results, *b.results[ref])
	}
	rep.Differences = differences(plan)
	return rep
}

// ensure builds ref once per run and returns its result.
func (b *builder) ensure(ref string) *Result {
	if r, ok := b.results[ref]; ok {
		return r
	}
	rec := recipeFor(ref)
	res := &Result{Ref: ref, Kind: rec.Kind}
	b.results[ref] = res
	b.order = append(b.order, ref)
	if err := b.ctx.Err(); err != nil {
		res.Err = err
		return res
	}
	start := time.Now()
	spec, err := b.specFor(rec)
	if err != nil {
		res.Err = err
		b.o.Log.Warn("image not built", "ref", ref, "why", err.Error())
		return res
	}
	res.Log = b.logPath("image", spec.Ref)
	id, reused, err := b.buildSpec(spec, res.Log)
	if err != nil {
		res.Err = err
		b.o.Log.Warn("image not built", "ref", ref, "why", err.Error())
		return res
	}
	res.Local, res.ID, res.Reused, res.Took = spec.Ref, id, reused, time.Since(start)
	return res
}

// buildSpec builds one image spec; reused says the daemon had it.
func (b *builder) buildSpec(s imagespec.Spec, logPath string) (id string, reused bool, err error) {
	before, _ := b.o.Docker.ImageID(b.ctx, s.Ref)
	work := filepath.Join(b.root(), "context", safeName(s.Ref))
	id, err = imagespec.Build(b.ctx, b.o.Docker, b.o.Log, s, work, logPath)
	if err != nil {
		return "", false, err
	}
	return id, id == before, nil
}

// specFor is the image spec of a recipe, building its inputs first.
func (b *builder) specFor(rec recipe) (imagespec.Spec, error) {
	switch rec.Kind {
	case kindServer:
		return b.serverSpec(rec)
	case kindPause:
		bin, err := b.pause(rec.Version)
		if err != nil {
			return imagespec.Spec{}, err
		}
		return components.Pause(rec.Version, bin), nil
	case kindEtcd, kindQuayEtcd:
		return b.etcdSpec(rec)
	case kindCoreDNS:
		bin, err := b.program(coreDNSProgram(rec.Version), "10–20 min on 2 busy cores")
		if err != nil {
			return imagespec.Spec{}, err
		}
		if err := b.staticBase(); err != nil {
			return imagespec.Spec{}, err
		}
		return components.CoreDNS(rec.Version, bin), nil
	case kindKonnectivity:
		bin, err := b.program(konnectivityProgram(rec.Version), "5–15 min on 2 busy cores")
		if err != nil {
			return imagespec.Spec{}, err
		}
		if err := b.staticBase(); err != nil {
			return imagespec.Spec{}, err
		}
		return components.Konnectivity(rec.Name, rec.Version, bin), nil
	default:
		return b.kindSpec(rec)
	}
}

// serverSpec is the image of a Kubernetes server component (rec.Name),
// from the release binaries of rec.Version.
func (b *builder) serverSpec(rec recipe) (imagespec.Spec, error) {
	bin, err := b.kubernetes(rec.Version)
	if err != nil {
		return imagespec.Spec{}, err
	}
	base := components.StaticBaseRef
	if rec.Name == "kube-proxy" { // build/common.sh:112: the iptables base
		base, err = b.iptablesBase()
	} else {
		err = b.staticBase()
	}
	if err != nil {
		return imagespec.Spec{}, err
	}
	return components.ServerImage(rec.Name, rec.Version, bin, base), nil
}

// etcdSpec is etcd's image, registry.k8s.io's or (kindQuayEtcd) quay.io's,
// etcd built at the version rec.Version names.
func (b *builder) etcdSpec(rec recipe) (imagespec.Spec, error) {
	version := etcdVersion(rec.Version)
	bin, err := b.program(etcdProgram(version), "15–30 min on 2 busy cores")
	if err != nil {
		return imagespec.Spec{}, err
	}
	if rec.Kind == kindQuayEtcd {
		base, err := b.iptablesBase()
		if err != nil {
			return imagespec.Spec{}, err
		}
		return quayEtcd(rec.Ref, version, bin, base), nil
	}
	if err := b.staticBase(); err != nil {
		return imagespec.Spec{}, err
	}
	return components.Etcd(rec.Version, version, bin), nil
}

// kindSpec covers kind's own images and the stand-ins.
func (b *builder) kindSpec(rec recipe) (imagespec.Spec, error) {
	switch rec.Kind {
	case kindKindnetd:
		tree, err := b.kindnetdTree()
		if err != nil {
			return imagespec.Spec{}, err
		}
		bin, err := b.program(kindnetdProgram(tree), "5–10 min on 2 busy cores")
		if err != nil {
			return imagespec.Spec{}, err
		}
		base, err := b.iptablesBase()
		if err != nil {
			return imagespec.Spec{}, err
		}
		return components.Kindnetd(rec.Ref, "sigs.k8s.io/kind images/kindnetd @"+kindnetdCommit, filepath.Join(bin, "kindnetd"), base), nil
	case kindLocalPath:
		bin, err := b.program(localPathProgram(), "5–10 min on 2 busy cores")
		if err != nil {
			return imagespec.Spec{}, err
		}
		if err := b.staticBase(); err != nil {
			return imagespec.Spec{}, err
		}
		return components.LocalPathProvisioner(rec.Ref, "github.com/rancher/local-path-provisioner@"+localPathVersion,
			filepath.Join(bin, "local-path-provisioner")), nil
	case kindLocalHelper:
		base, err := b.iptablesBase()
		if err != nil {
			return imagespec.Spec{}, err
		}
		return components.LocalPathHelper(rec.Ref, base), nil
	case kindKubectl:
		version, _, ok := kubectlVersion(rec.Version, b.plan.Kubernetes)
		if !ok {
			return imagespec.Spec{}, fmt.Errorf("image %s: no Kubernetes version of minor %s, or one minor from it, in the lab (kubectl's "+
				"version skew)", rec.Ref, rec.Version)
		}
		bin, err := b.kubernetes(version)
		if err != nil {
			return imagespec.Spec{}, err
		}
		base, err := b.iptablesBase()
		if err != nil {
			return imagespec.Spec{}, err
		}
		return kubectl(rec.Ref, version, bin, base), nil
	case kindKamaji, kindHAMi, kindCertManager, kindCertgen:
		return b.snapshotSpec(rec)
	case kindNVMLMock:
		return b.nvmlMockSpec(rec)
	case kindUnsupported, kindNode:
		return imagespec.Spec{}, fmt.Errorf("image %s is not built by the rehearsal: %s", rec.Ref, rec.Why)
	}
	return imagespec.Spec{}, fmt.Errorf("image %s: no recipe", rec.Ref)
}

// kubernetes returns the release binaries of version, built once per run.
func (b *builder) kubernetes(version string) (string, error) {
	if r, ok := b.bins[version]; ok {
		return r.dir, r.err
	}
	dir, err := k8srelease.Build(b.ctx, b.o.Log, b.root(), version)
	if err != nil {
		err = fmt.Errorf("kubernetes %s release binaries: %w", version, err)
	}
	b.bins[version] = binResult{dir, err}
	return dir, err
}

// program builds a Go program once per run.
func (b *builder) program(p gobuild.Program, estimate string) (string, error) {
	key := "program " + p.Name
	if r, ok := b.bins[key]; ok {
		return r.dir, r.err
	}
	dir, err := gobuild.Build(b.ctx, b.o.Log, b.root(), p, estimate)
	b.bins[key] = binResult{dir, err}
	return dir, err
}

// rootfsImage makes a Debian root file system and its base image once.
func (b *builder) rootfsImage(s rootfs.Spec) (baseResult, error) {
	if r, ok := b.bases[s.Name]; ok {
		return r, r.err
	}
	r := baseResult{}
	r.fs, r.err = rootfs.Make(b.ctx, b.o.Log, b.root(), s)
	if r.err == nil {
		r.ref, r.err = rootfs.Import(b.ctx, b.o.Docker, b.o.Log, s, r.fs)
	}
	b.bases[s.Name] = r
	return r, r.err
}

func (b *builder) iptablesBase() (string, error) {
	r, err := b.rootfsImage(components.IptablesRootFS)
	return r.ref, err
}

// staticBase builds the static base image once (from the iptables root
// file system's CA bundle).
func (b *builder) staticBase() error {
	if r, ok := b.bases["static"]; ok {
		return r.err
	}
	ipt, err := b.rootfsImage(components.IptablesRootFS)
	if err == nil {
		_, _, err = b.buildSpec(components.StaticBase(ipt.fs), b.logPath("image", components.StaticBaseRef))
	}
	b.bases["static"] = baseResult{ref: components.StaticBaseRef, err: err}
	return err
}

func (b *builder) root() string { return b.o.Root }

// basesOnly makes the base images and reports them.
func (b *builder) basesOnly() Report {
	var rep Report
	start := time.Now()
	add := func(ref string, err error) {
		r := Result{Ref: ref, Kind: "base", Local: ref, Err: err, Took: time.Since(start)}
		if err == nil {
			r.ID, err = b.o.Docker.ImageID(b.ctx, ref)
			r.Err = err
		}
		rep.Results = append(rep.Results, r)
		start = time.Now()
	}
	ipt, err := b.rootfsImage(components.IptablesRootFS)
	add(orName(ipt.ref, components.IptablesRootFS.ImageRef()), err)
	add(components.StaticBaseRef, b.staticBase())
	node, err := b.rootfsImage(nodeimage.RootFS)
	add(orName(node.ref, nodeimage.RootFS.ImageRef()), err)
	return rep
}

func orName(ref, name string) string {
	if ref == "" {
		return name
	}
	return ref
}

// logPath is where a step's log goes: <root>/logs/<kind>-<name>.log.
func (b *builder) logPath(kind, name string) string {
	dir := filepath.Join(b.root(), "logs")
	_ = os.MkdirAll(dir, 0o755)
	return filepath.Join(dir, kind+"-"+safeName(name)+".log")
}

// safeName turns a reference into a file name.
func safeName(ref string) string {
	return strings.NewReplacer("/", "_", ":", "_", "@", "_").Replace(ref)
}
