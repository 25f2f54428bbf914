package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gobuild"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/moduleimages"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/registry"
)

// newRehearseModuleCommands are the Dagger module's pieces for the
// rehearsal: its images (module-images) and the registry serving them and
// the lab's images (registry); the rehearse command attaches them.
func newRehearseModuleCommands() []*cobra.Command {
	reg := &cobra.Command{
		Use:   "registry",
		Short: "A registry inside the private daemon's network namespace, serving the module's and the lab's images as registry mirrors",
	}
	reg.AddCommand(rehearseRegistryUp(), rehearseRegistryDown(), rehearseRegistryPush())
	adapt := &cobra.Command{
		Use:   "module-adaptations",
		Short: "List what the Dagger module's run on this machine adds to the rehearsal's adaptations, with reason and evidence",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return rehearsal.Print(cmd.OutOrStdout(), rehearsal.ModuleAdaptations())
		},
	}
	return []*cobra.Command{rehearseModuleImages(), reg, adapt}
}

func rehearseModuleImages() *cobra.Command {
	var cf cacheFlag
	var mobyGit, cliGit string
	var planOnly bool
	c := &cobra.Command{
		Use:   "module-images",
		Short: "Build the images the Dagger module pulls (docker:29-cli, docker:29-dind, golang:1.26) from pinned sources, cached",
		Long: `Build, or reuse from the cache, docker:29-cli, docker:29-dind and golang:1.26 as the Dagger module
pulls them: Docker ` + moduleimages.DockerVersion + ` from vendored git snapshots of moby/moby and docker/cli
(--moby-git-dir, --cli-git-dir), containerd and runc through the Go module proxy, this machine's Go,
Debian's packages (debootstrap; run as root). Images are built on DOCKER_HOST's daemon and kept as
archives under <cache>/module-images. The report lists how each differs from the published image.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			if planOnly {
				moduleimages.WritePlan(out)
				return nil
			}
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
			rep := moduleimages.Build(cmd.Context(), moduleimages.Options{Root: string(cf), Docker: docker.CLI{},
				Log: log, MobyGitDir: mobyGit, CLIGitDir: cliGit})
			rep.Write(out)
			if rep.Stopped != nil || len(rep.Failed()) > 0 {
				return errors.New("module images not all built (see the report above)")
			}
			return nil
		},
	}
	f := c.Flags()
	cf.register(f, "")
	f.StringVar(&mobyGit, "moby-git-dir", "", "git directory of moby/moby holding tag docker-v"+moduleimages.DockerVersion)
	f.StringVar(&cliGit, "cli-git-dir", "", "git directory of docker/cli holding tag v"+moduleimages.DockerVersion)
	f.BoolVar(&planOnly, "plan", false, "print what would be built and how, build nothing")
	return c
}

// registrySite is a private daemon's registry: its state, namespace and the
// address the daemon's containers reach it at.
type registrySite struct {
	layout registry.Layout
	nsPath string
	addr   string
}

func siteOf(ctx context.Context, f daemonFlags) (registrySite, error) {
	l, err := f.layout()
	if err != nil {
		return registrySite{}, err
	}
	rec, err := hostdaemon.ReadRecord(l)
	if err != nil || rec.Netns == "" {
		return registrySite{}, fmt.Errorf("private daemon %s: no network namespace recorded (%v): "+
			"start it with `rehearse daemon up --dir %s`", l.Dir, err, l.Dir)
	}
	nsPath := hostdaemon.NetnsPath(rec.Netns)
	gw, err := registry.Gateway(ctx, nsPath)
	if err != nil {
		return registrySite{}, err
	}
	return registrySite{layout: registry.LayoutFor(l.Dir), nsPath: nsPath, addr: registry.Addr(gw)}, nil
}

func rehearseRegistryUp() *cobra.Command {
	var f daemonFlags
	var cf cacheFlag
	c := &cobra.Command{
		Use:   "up",
		Short: "Build the registry (once, cached) and start it in the private daemon's namespace; print the engine's mirror configuration",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			site, err := siteOf(ctx, f)
			if err != nil {
				return err
			}
			root, err := cf.dir()
			if err != nil {
				return err
			}
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
			bin, err := gobuild.Build(ctx, log, root, registry.Program(), "about 4 min on 2 cores")
			if err != nil {
				return err
			}
			if err := registry.Start(ctx, log, site.layout, site.nsPath, filepath.Join(bin, "registry")); err != nil {
				return err
			}
			mirrors, err := json.MarshalIndent(map[string]any{"registries": registry.Mirrors(site.addr)}, "", "  ")
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(),
				"registry %s (inside network namespace %s; 127.0.0.1:%d from the daemon itself)\nengine.json mirrors:\n%s\n",
				site.addr, site.nsPath, registry.Port, mirrors)
			return nil
		},
	}
	f.register(c, false)
	cf.register(c.Flags(), "")
	return c
}

func rehearseRegistryDown() *cobra.Command {
	var f daemonFlags
	c := &cobra.Command{
		Use:   "down",
		Short: "Stop the private daemon's registry (its storage stays)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := f.layout()
			if err != nil {
				return err
			}
			return registry.Stop(cmd.Context(), slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil)), registry.LayoutFor(l.Dir))
		},
	}
	f.register(c, false)
	return c
}

// registryPushFlags are `rehearse registry push`'s flags.
type registryPushFlags struct {
	daemon       daemonFlags
	bundle       string
	cache        cacheFlag
	archives     []string
	moduleImages bool
}

func rehearseRegistryPush() *cobra.Command {
	var f registryPushFlags
	c := &cobra.Command{
		Use:   "push",
		Short: "Push a bundle's images, the module's images or single archives into the registry, under their mirror names",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRegistryPush(cmd.Context(), streams{out: cmd.OutOrStdout(), errOut: cmd.ErrOrStderr()}, &f)
		},
	}
	f.bind(c)
	return c
}

// bind adds `rehearse registry push`'s flags to c.
func (f *registryPushFlags) bind(c *cobra.Command) {
	f.daemon.register(c, false)
	c.Flags().StringVar(&f.bundle, "bundle", "", "bundle directory (index.json as `labctl images save` writes it) to push")
	c.Flags().StringArrayVar(&f.archives, "archive", nil, "REF=FILE: an image archive to push as REF; repeatable")
	c.Flags().BoolVar(&f.moduleImages, "module-images", false, "push the module's images built by `rehearse module-images`")
	f.cache.register(c.Flags(), "")
}

// runRegistryPush is `rehearse registry push` once its flags are parsed:
// it pushes the archives, then the bundle, and lists what the registry
// serves each as.
func runRegistryPush(ctx context.Context, s streams, f *registryPushFlags) error {
	site, err := siteOf(ctx, f.daemon)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(s.errOut, nil))
	p := registry.Pusher{Client: registry.Client(site.nsPath), Host: registry.Addr("127.0.0.1")}
	var pushed []registry.Pushed
	if f.moduleImages {
		if err := f.addModuleImages(); err != nil {
			return err
		}
	}
	for _, a := range f.archives {
		ref, file, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("--archive %q: want REF=FILE", a)
		}
		got, err := registry.PushArchive(ctx, log, p, file, ref, site.addr)
		if err != nil {
			return err
		}
		pushed = append(pushed, got)
	}
	if f.bundle != "" {
		got, err := registry.PushBundle(ctx, log, p, f.bundle, site.addr)
		pushed = append(pushed, got...)
		if err != nil {
			return err
		}
	}
	return writePushed(s.out, pushed)
}

// addModuleImages adds the archives `rehearse module-images` keeps in the
// cache to --archive's, so they are pushed the same way.
func (f *registryPushFlags) addModuleImages() error {
	root, err := f.cache.dir()
	if err != nil {
		return err
	}
	for ref, file := range moduleimages.Archives(root) {
		f.archives = append(f.archives, ref+"="+file)
	}
	return nil
}

// writePushed lists each image pushed, the name the registry serves it as
// and its digest, saying when that digest is not the pinned one.
func writePushed(w io.Writer, pushed []registry.Pushed) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "REF\tSERVED AS\tDIGEST")
	for _, x := range pushed {
		note := ""
		if !x.PinMatches() {
			note = "  (not the pinned digest: a pull by the pin fails)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s%s\n", x.Ref, x.Mirror, x.Digest, note)
	}
	return tw.Flush()
}
