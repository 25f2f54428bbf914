package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/internal/helm"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/stages"
)

// imagesFlags are `labctl images`'s flags.
type imagesFlags struct {
	src             labFlags
	sources, asJSON bool
	bundleRefs      bool
	bundleIndex     bool
	indexCharts     bool
	archives        string
}

func newImagesCommand(s streams) *cobra.Command {
	var f imagesFlags
	cmd := &cobra.Command{
		Use:   "images",
		Short: "List every image the lab runs, per stage and place, with where its name comes from; save them as a bundle",
		Long: `List every image the lab runs: the node images the Docker daemon starts, the pods on the
management node (cert-manager, Kamaji, etcd, each tenant's control plane) and on the tenant
workers (CNI, kube-proxy, CoreDNS, konnectivity agent, HAMi). The list is derived from the lab's
pinned versions and its rendered manifests. "preloaded" images are inside a kindest/node image
already; "bundle" images go into ` + "`labctl images save DIR`" + `; "built" ones labctl builds itself.`,
		Example: `  labctl images
  labctl images --sources
  labctl images --bundle-refs         # one reference per line: what a bundle holds
  labctl images --bundle-index        # a bundle's index.json: the archive of every image and chart
  labctl images --bundle-index --archives ./bundle   # the same, with each archive's image digests
  labctl images save ./bundle         # pull (where a registry answers) and save them
  labctl up --images ./bundle         # build the lab from the bundle, no registry needed`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runImages(s, &f)
		},
	}
	// After Long is set: the lab source's flags append the lab rule to it.
	f.bind(cmd)
	cmd.AddCommand(newImagesSaveCommand(s))
	return cmd
}

// bind adds `labctl images`'s flags to cmd.
func (f *imagesFlags) bind(cmd *cobra.Command) {
	fs := cmd.Flags()
	f.src.registerLabSource(cmd)
	fs.BoolVar(&f.sources, "sources", false, "print where upstream each image name comes from")
	fs.BoolVar(&f.asJSON, "json", false, "print the list as JSON")
	fs.BoolVar(&f.bundleRefs, "bundle-refs", false, "print only the references a bundle holds, one per line")
	fs.BoolVar(&f.bundleIndex, "bundle-index", false, "print the index.json of a bundle (file per image reference, "+
		"no image IDs or digests unless --archives; file per chart under "+images.ChartsDir+"/) "+
		"for tools that fetch the images and charts themselves")
	fs.StringVar(&f.archives, "archives", "", "with --bundle-index, read each image's archive from `DIR` "+
		"under the file name the index gives it and record the image's config and manifest digests in the index, "+
		"as labctl images save does: for tools that fetched the images by their references "+
		"(up --images ties a digest-pinned image to its pin through them)")
	fs.BoolVar(&f.indexCharts, "charts", true, "with --bundle-index, name every chart the lab installs "+
		"(name, repo, pinned version, file); up --images refuses a bundle whose index names a chart it lacks")
}

// runImages is `labctl images` once its flags are parsed: the lab's
// images as a table, or as --bundle-refs, --bundle-index or --json ask.
func runImages(s streams, f *imagesFlags) error {
	l, err := f.src.loadLab(makesState)
	if err != nil {
		return err
	}
	list, err := images.List(l)
	if err != nil {
		return err
	}
	list = images.Sorted(list)
	switch {
	case f.bundleRefs:
		for _, ref := range images.BundleRefs(list) {
			fmt.Fprintln(s.out, ref)
		}
		return nil
	case f.bundleIndex:
		idx, err := f.bundleIndexOf(l, list)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		return enc.Encode(idx)
	case f.asJSON:
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	return printImages(s.out, list, f.sources)
}

// bundleIndexOf is what a bundle's index.json holds, without image IDs:
// the Dagger module fetches each ref into the named file, and each chart
// into ChartsDir/file, and hands labctl this very index with them (up
// --images).
func (f *imagesFlags) bundleIndexOf(l *lab.Lab, list []images.Image) (images.Index, error) {
	var idx images.Index
	for _, ref := range images.BundleRefs(list) {
		idx.Images = append(idx.Images, images.Entry{Ref: ref, File: images.ArchiveName(ref)})
	}
	if f.archives != "" {
		// The archives another tool fetched by these very
		// references: each image's digests, read from its
		// archive, go into the index (bundle_pin.go).
		var err error
		if idx, err = images.RecordArchives(f.archives, idx); err != nil {
			return images.Index{}, err
		}
	}
	if f.indexCharts {
		for _, c := range images.PinnedCharts(l) {
			idx.Charts = append(idx.Charts, images.ChartEntry{Chart: c, File: images.ChartArchiveName(c)})
		}
	}
	return idx, nil
}

func newImagesSaveCommand(s streams) *cobra.Command {
	var (
		src         labFlags
		pullTimeout time.Duration
		verbose     bool
		charts      bool
	)
	cmd := &cobra.Command{
		Use: "save DIR",
		Short: "Pull (where a registry answers) and save every bundle image into DIR, " +
			"and every chart the lab installs into DIR/charts, with DIR/index.json",
		Long: `Save what an air-gapped ` + "`labctl up --images DIR`" + ` needs: every image the lab runs that no node
image holds (docker save archives, pulled first where the daemon lacks them) and, with the
pinned helm CLI (LABCTL_HELM or helm on PATH), every chart the lab installs at its pinned
version (helm pull from the chart's repository into DIR/charts). DIR/index.json names both.`,
		Example: `  labctl images save ./bundle
  labctl images save ./bundle --charts=false     # images only; up --images then fetches charts from their repositories
  DOCKER_HOST=tcp://docker:2375 labctl images save /bundle`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := src.loadLab(makesState)
			if err != nil {
				return err
			}
			list, err := images.List(l)
			if err != nil {
				return err
			}
			refs := images.BundleRefs(images.Sorted(list))
			log := logTo(s.errOut, verbose)
			idx, err := images.Save(cmd.Context(), docker.CLI{}, refs, args[0], pullTimeout, log)
			if err != nil {
				return err
			}
			if charts {
				puller := helm.ChartPuller{Helm: helm.CLI{Bin: os.Getenv("LABCTL_HELM")}}
				if idx, err = saveBundleCharts(cmd.Context(), puller, l, args[0], idx, log); err != nil {
					return err
				}
			}
			fmt.Fprintf(s.out, "%d images and %d charts saved to %s (index %s)\n", len(idx.Images), len(idx.Charts), args[0], images.IndexFile)
			return nil
		},
	}
	f := cmd.Flags()
	src.registerLabSource(cmd)
	f.BoolVar(&charts, "charts", true, "also save every chart the lab installs (helm pull) into DIR/charts")
	f.DurationVar(&pullTimeout, "pull-timeout", 10*time.Minute, "give up on one image pull after this long")
	f.BoolVarP(&verbose, "verbose", "v", false, "log every image saved")
	return cmd
}

// saveBundleCharts pulls every chart the lab installs into the bundle in
// dir and adds them to its index. The index names what was saved even when
// a chart failed: the images are usable, and up --images fetches a chart
// the bundle lacks from its repository.
func saveBundleCharts(ctx context.Context, p images.ChartPuller, l *lab.Lab, dir string, idx images.Index,
	log *slog.Logger) (images.Index, error) {
	entries, err := images.SaveCharts(ctx, p, images.PinnedCharts(l), dir, log)
	idx.Charts = entries
	if werr := images.WriteIndex(dir, idx); werr != nil {
		return idx, errors.Join(err, werr)
	}
	if err != nil {
		return idx, fmt.Errorf("%w (the images are saved; --charts=false skips the charts)", err)
	}
	return idx, nil
}

func logTo(w io.Writer, verbose bool) *slog.Logger {
	if !verbose {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// printImages writes the list as a table: stage, place, image, pull
// policy, and how it reaches the place.
func printImages(w io.Writer, list []images.Image, sources bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if !sources {
		fmt.Fprintln(tw, "STAGE\tPLACE\tIMAGE\tPULL\tHOW")
	}
	for _, i := range list {
		how := "bundle"
		switch {
		case i.Preloaded != "":
			how = "preloaded in " + i.Preloaded
		case i.BundlePullPolicy != "":
			// Kamaji asks Always; with --images the tenants stage's
			// MutatingAdmissionPolicy makes the pods ask BundlePullPolicy.
			how = "bundle (up --images makes it " + i.BundlePullPolicy + ")"
		}
		pull := i.PullPolicy
		if pull == "" {
			pull = "-"
		}
		if sources {
			fmt.Fprintf(w, "%s, %s: %s\n  pull %s, %s\n  from %s\n", i.Stage, i.Place, i.Ref, pull, how, i.Source)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", i.Stage, i.Place, i.Ref, pull, how)
	}
	return tw.Flush()
}

// loadBundle loads the bundle in dir into the lab's daemon and sets the
// stages up to import its images into the nodes. With dryRun nothing is
// loaded: the index alone says what would be preloaded.
func loadBundle(ctx context.Context, w io.Writer, e *stages.Env, dir string, opts images.LoadOptions, dryRun bool) error {
	list, err := images.List(e.Lab)
	if err != nil {
		return err
	}
	var loaded images.Loaded
	if dryRun {
		idx, err := images.ReadIndex(dir)
		if err != nil {
			return err
		}
		loaded = images.Loaded{}
		for _, en := range idx.Images {
			loaded[en.Ref] = en.Ref
		}
	} else {
		record, err := e.State.ImagesLoaded()
		if err != nil {
			return err
		}
		loaded, err = images.LoadOnce(ctx, docker.CLI{}, dir, record, opts, e.Log)
		if err != nil {
			return err
		}
	}
	if missing := missingFromBundle(list, loaded); len(missing) > 0 {
		fmt.Fprintf(w, "labctl: the bundle %s lacks %d of the lab's images (the nodes pull them): %v\n", dir, len(missing), missing)
	}
	idx, err := images.ReadIndex(dir)
	if err != nil {
		return err
	}
	archives, missing, err := images.ChartArchives(dir, idx, images.PinnedCharts(e.Lab))
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		fmt.Fprintf(w, "labctl: the bundle %s lacks %d of the lab's charts (helm fetches them from their repositories): %v\n",
			dir, len(missing), missing)
	}
	e.Preload = &stages.Preload{Dir: dir, Images: list, Loaded: loaded, Charts: archives}
	return nil
}

// missingFromBundle lists the bundle images of the lab a bundle lacks.
func missingFromBundle(list []images.Image, loaded images.Loaded) []string {
	var out []string
	for _, ref := range images.BundleRefs(list) {
		if !loaded.Has(ref) {
			out = append(out, ref)
		}
	}
	return out
}
