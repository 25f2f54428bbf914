package daggerrun

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/daggerbuild"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gobuild"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/moduleimages"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/registry"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/run"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// GoProxyPort is where the Go proxy tree is served, on the private
// daemon's bridge gateway (the engine's containers reach the host there).
const GoProxyPort = 5001

// Options are one Dagger rehearsal's inputs.
type Options struct {
	// Checkout is the gpu-lab repository whose HEAD is cloned afresh: the
	// calls run in the clone, as a user's first `dagger call` does.
	Checkout string
	// Evidence receives the logs, the reports each call exported and the
	// run's report (ReportFile).
	Evidence string
	// DaemonDir and Netns are the private daemon's (hostdaemon).
	DaemonDir, Netns string
	// Cache is the rehearsal's cache root (module images, the registry's
	// build); Dagger the Dagger build's (CLI, engine image, Go proxy tree).
	Cache  string
	Dagger daggerbuild.Layout
	// Bundle holds the lab's images (`rehearse images`), Charts the chart
	// archives (`rehearse charts`).
	Bundle, Charts string
	// Calls default to the README's (Calls).
	Calls []Call
	// NoBundle lets the run go on without the lab's bundle (probing the
	// module while the images are still being built).
	NoBundle bool
	// Keep leaves the daemon, registry, Go proxy and engine running.
	Keep bool
	Log  *slog.Logger
}

// ReportFile is the run's report in the evidence directory.
const ReportFile = "dagger-rehearsal.md"

// daggerRun is one run's state, filled in as its steps go.
type daggerRun struct {
	o       Options
	log     *slog.Logger
	changes *hostdaemon.Changes
	layout  hostdaemon.Layout
	nsPath  string
	gateway string
	pushed  []registry.Pushed
	goproxy *http.Server
	runner  string
	clone   string
	module  ModuleOptions
	rep     *Report
}

// Run rehearses the README's Dagger commands once and writes ReportFile
// into the evidence directory, whatever happens; everything it started is
// stopped again unless Keep.
func Run(ctx context.Context, o Options) (Report, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Calls == nil {
		o.Calls = Calls
	}
	rep := &Report{Date: time.Now().UTC()}
	if err := os.MkdirAll(filepath.Join(o.Evidence, "logs"), 0o755); err != nil {
		return *rep, fmt.Errorf("the evidence directory: %w", err)
	}
	r := &daggerRun{o: o, log: o.Log, rep: rep}
	steps, err := runSteps(ctx, o.Log, time.Now, r.steps(), o.Keep)
	rep.Steps = steps
	if err != nil {
		rep.Failure = err.Error()
	}
	rep.Adaptations = append(rehearsal.DaggerAdaptations(), rehearsal.ModuleAdaptations()...)
	rep.Suites = map[string]*run.Suite{}
	for _, c := range o.Calls {
		if c.KeepAs == "" {
			continue
		}
		if s, serr := run.ReadSuite(filepath.Join(o.Evidence, c.KeepAs)); serr == nil {
			rep.Suites[c.KeepAs] = s
		}
	}
	if werr := os.WriteFile(filepath.Join(o.Evidence, ReportFile), []byte(rep.Markdown()), 0o644); werr != nil {
		err = errors.Join(err, werr)
	}
	return *rep, err
}

func (r *daggerRun) steps() []Step {
	s := []Step{
		{Name: "private daemon", Do: r.daemonUp, Undo: r.daemonDown},
		{Name: "registry", Do: r.registryUp, Undo: r.registryDown},
		{Name: "push images", Do: r.push},
		{Name: "Go proxy", Do: r.goProxyUp, Undo: r.goProxyDown},
		{Name: "engine", Do: r.engineUp, Undo: r.engineDown},
		{Name: "disk", Do: r.checkDisk},
		{Name: "fresh clone", Do: r.cloneRepo, Undo: r.removeClone},
		{Name: "module options (.env)", Do: r.writeDotEnv},
		{Name: "versions", Do: r.versions},
	}
	for _, c := range r.o.Calls {
		s = append(s, Step{Name: c.Name, Do: func(ctx context.Context) error { return r.call(ctx, c) }})
	}
	return s
}

func (r *daggerRun) daemonUp(ctx context.Context) error {
	var err error
	if r.changes, err = hostdaemon.Claim(ctx, r.o.DaemonDir, "rehearse dagger run", r.log); err != nil {
		return err
	}
	raised, err := run.RaiseLimits(run.InotifyLimits, r.changes)
	for _, x := range raised {
		r.log.Info("raised a kernel limit for the run (restored afterwards)", "limit", x.Path, "from", x.Old, "to", x.New)
	}
	if err != nil {
		return err
	}
	if r.layout, err = hostdaemon.Start(ctx, hostdaemon.Options{Dir: r.o.DaemonDir, Netns: r.o.Netns, Log: r.log}); err != nil {
		return err
	}
	rec, err := hostdaemon.ReadRecord(r.layout)
	if err != nil {
		return err
	}
	r.nsPath = hostdaemon.NetnsPath(rec.Netns)
	r.gateway, err = registry.Gateway(ctx, r.nsPath)
	return err
}

func (r *daggerRun) daemonDown(ctx context.Context) error {
	return hostdaemon.Stop(ctx, hostdaemon.StopOptions{Dir: r.o.DaemonDir, Netns: r.o.Netns, Log: r.log})
}

func (r *daggerRun) registryUp(ctx context.Context) error {
	bin, err := gobuild.Build(ctx, r.log, r.o.Cache, registry.Program(), "about 4 min on 2 cores")
	if err != nil {
		return err
	}
	return registry.Start(ctx, r.log, registry.LayoutFor(r.layout.Dir), r.nsPath, filepath.Join(bin, "registry"))
}

// registryDown stops the registry and removes what it stored: it lives in
// the daemon's directory for this run only, and the daemon removes only
// its own files (a kept registry kept the directory without its marker,
// and the next run refused it).
func (r *daggerRun) registryDown(ctx context.Context) error {
	l := registry.LayoutFor(r.layout.Dir)
	if err := registry.Stop(ctx, r.log, l); err != nil {
		return err
	}
	return registry.Remove(l)
}

// push puts the module's images and the lab's bundle into the registry,
// and names the node image by the digest it is served under.
func (r *daggerRun) push(ctx context.Context) error {
	addr := registry.Addr(r.gateway)
	p := registry.Pusher{Client: registry.Client(r.nsPath), Host: registry.Addr("127.0.0.1")}
	archives := moduleimages.Archives(r.o.Cache)
	for _, ref := range []string{moduleimages.CLIRef, moduleimages.DindRef, moduleimages.GoRef} {
		file, ok := archives[ref]
		if !ok {
			return fmt.Errorf("the module's image %s is not built: run `rehearse module-images` first", ref)
		}
		got, err := registry.PushArchive(ctx, r.log, p, file, ref, addr)
		if err != nil {
			return err
		}
		r.pushed = append(r.pushed, got)
	}
	r.module = ModuleOptions{GoProxy: r.goProxyURL(), GoSumDB: "off", Charts: r.o.Charts}
	if _, err := os.Stat(filepath.Join(r.o.Bundle, "index.json")); errors.Is(err, os.ErrNotExist) && r.o.NoBundle {
		r.log.Warn("no lab bundle: the registry serves only the module's images, "+
			"and a lab-test call fails where it pulls the lab's", "bundle", r.o.Bundle)
		return nil
	}
	got, err := registry.PushBundle(ctx, r.log, p, r.o.Bundle, addr)
	r.pushed = append(r.pushed, got...)
	if err != nil {
		return err
	}
	l, err := lab.Parse(rehearsal.LabYAML)
	if err != nil {
		return err
	}
	r.module.Versions, err = NodeImageOverrides(r.pushed, l.Versions)
	return err
}

func (r *daggerRun) goProxyURL() string {
	return "http://" + net.JoinHostPort(r.gateway, fmt.Sprint(GoProxyPort))
}

// goProxyUp serves the module's Go proxy tree on the gateway inside the
// namespace, from this process.
func (r *daggerRun) goProxyUp(ctx context.Context) error {
	tree, err := r.o.Dagger.LatestModuleProxy()
	if err != nil {
		return err
	}
	ln, err := registry.ListenIn(r.nsPath, "tcp", net.JoinHostPort(r.gateway, fmt.Sprint(GoProxyPort)))
	if err != nil {
		return fmt.Errorf("the Go proxy's port: %w", err)
	}
	r.goproxy = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: daggerbuild.GoProxyHandler(r.log, tree)}
	go func() { _ = r.goproxy.Serve(ln) }()
	r.log.Info("serving the Go proxy tree", "tree", tree, "url", r.goProxyURL())
	return nil
}

func (r *daggerRun) goProxyDown(context.Context) error {
	if r.goproxy == nil {
		return nil
	}
	return r.goproxy.Close()
}

func (r *daggerRun) docker() docker.CLI {
	return docker.CLI{Env: []string{"DOCKER_HOST=" + r.layout.DockerHost()}}
}

func (r *daggerRun) engineUp(ctx context.Context) error {
	archive, err := r.o.Dagger.LatestEngineArchive()
	if err != nil {
		return err
	}
	addr := registry.Addr(r.gateway)
	cfg := daggerbuild.EngineConfig{HTTP: []string{addr}, Mirrors: map[string][]string{}, GC: daggerbuild.RehearsalGC}
	for host, rc := range registry.Mirrors(addr) {
		if len(rc.Mirrors) > 0 {
			cfg.Mirrors[host] = rc.Mirrors
		}
	}
	r.runner, err = daggerbuild.EngineUp(ctx, r.docker(), daggerbuild.EngineOptions{
		Log: r.log, Archive: archive, Config: cfg, GoProxy: r.goProxyURL(), StateDir: filepath.Join(r.o.Dagger.Root, "engine"),
	})
	return err
}

func (r *daggerRun) engineDown(ctx context.Context) error {
	if r.layout.Dir == "" {
		return nil
	}
	if err := r.keepEngineGC(ctx); err != nil {
		r.log.Warn("the engine's collector log is not kept", "err", err)
	}
	return daggerbuild.EngineDown(ctx, r.docker())
}

// cloneRepo clones the checkout's HEAD into the daemon's work area: what
// is committed, nothing a working tree holds besides.
func (r *daggerRun) cloneRepo(ctx context.Context) error {
	r.clone = filepath.Join(r.o.Dagger.Root, "clone", "gpu-lab")
	if err := os.RemoveAll(r.clone); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, "git", "clone", "--quiet", "--no-hardlinks", r.o.Checkout, r.clone).CombinedOutput()
	if err != nil {
		return fmt.Errorf("git clone %s: %w: %s", r.o.Checkout, err, out)
	}
	head, err := exec.CommandContext(ctx, "git", "-C", r.clone, "rev-parse", "HEAD").Output()
	r.rep.Commit = strings.TrimSpace(string(head))
	return err
}

// writeDotEnv gives the module its options as a runner without internet
// access would: a .env beside dagger.json (ModuleOptions.DotEnv), kept
// with the evidence. The clone's git status shows it untracked; nothing
// of the module reads the file.
func (r *daggerRun) writeDotEnv(context.Context) error {
	env, err := r.module.DotEnv()
	if err != nil {
		return err
	}
	r.rep.DotEnv = env
	return errors.Join(
		os.WriteFile(filepath.Join(r.clone, ".env"), []byte(env), 0o644),
		os.WriteFile(filepath.Join(r.o.Evidence, "logs", "dotenv"), []byte(env), 0o644))
}

func (r *daggerRun) removeClone(context.Context) error {
	if r.clone == "" {
		return nil
	}
	return os.RemoveAll(filepath.Dir(r.clone))
}

// versions records the CLI's and the engine's versions as they print them.
func (r *daggerRun) versions(ctx context.Context) error {
	for _, args := range [][]string{{"version"}, {"core", "version"}} {
		out, err := r.dagger(ctx, args)
		if err != nil {
			return fmt.Errorf("dagger %s: %w", strings.Join(args, " "), err)
		}
		r.rep.Versions = append(r.rep.Versions, "dagger "+strings.Join(args, " ")+": "+strings.TrimSpace(string(out)))
	}
	return nil
}
