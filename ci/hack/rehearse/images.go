package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild"
	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// imagesFlags are `rehearse images`'s flags.
type imagesFlags struct {
	file, bundle, kindGit, knpGit, runc string
	only, nodeFiles, gitDirs            []string
	planOnly, basesOnly, nodeAdapt      bool
	cacheDir                            cacheFlag
}

// imagesLong is `rehearse images --help`'s text.
const imagesLong = `Build, or reuse from the cache, every image the lab runs, from pinned upstream sources only: the
Kubernetes release binaries and the other Go programs in module mode through the Go module proxy,
the OS userland from Debian's packages (debootstrap; run as root), kind node images the way kind
v0.33.0 makes them. Images are built on the Docker daemon DOCKER_HOST names (the machine's own by
default), tagged with the names ` + "`labctl images`" + ` lists, and saved into the bundle directory
(index.json merged: charts and images already there stay). A first run takes hours on 2 cores; a
second reuses every finished step (cache under ~/.cache/gpu-lab/rehearsal, or --cache) and takes
minutes. The report lists every image (built, reused, or not built and why, with its log) and every
difference from upstream's published images.`

// newImagesCommand is `rehearse images`.
func newImagesCommand() *cobra.Command {
	var f imagesFlags
	cmd := &cobra.Command{
		Use:   "images",
		Short: "Build every image of the lab from its pinned sources (cached), and write them as a bundle for `labctl up --images`",
		Long:  imagesLong,
		Example: `  rehearse images --bundle ./bundle --kind-git-dir /path/to/kind.git --kube-network-policies-git-dir /path/to/knp.git
  rehearse images --plan                           # what would be built, and how
  rehearse images --only kindest/node:v1.37.0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runImages(cmd.Context(), streams{out: cmd.OutOrStdout(), errOut: cmd.ErrOrStderr()}, &f)
		},
	}
	f.bind(cmd.Flags())
	return cmd
}

// bind adds `rehearse images`'s flags to fs.
func (f *imagesFlags) bind(fs *pflag.FlagSet) {
	fs.StringVarP(&f.file, "file", "f", "", "lab file (YAML or JSON); empty means the rehearsal's lab "+
		"(ci/hack/rehearsal/lab.yaml: the seed lab with the management node on the tenants' Kubernetes version)")
	fs.StringVar(&f.bundle, "bundle", "", "bundle directory to write (default <cache>/bundle); an index.json there is merged")
	f.cacheDir.register(fs, "")
	fs.StringVar(&f.kindGit, "kind-git-dir", "",
		"git directory of kubernetes-sigs/kind holding kindnetd's commit (the module proxy does not serve it)")
	fs.StringVar(&f.knpGit, "kube-network-policies-git-dir", "", "git directory of kubernetes-sigs/kube-network-policies "+
		"holding the commit kindnetd requires (the module proxy does not serve it)")
	fs.StringArrayVar(&f.gitDirs, "git-dir", nil, "OWNER/NAME=DIR: git directory of a repository built from git history "+
		"at the lab's tag (the module proxy does not serve it), e.g. clastix/kamaji=/work/.mirror/clastix+kamaji/repo; "+
		"repeat per repository")
	fs.StringVar(&f.runc, "node-runc", "",
		"runc binary the node images' containerd runs (a capability-filtering wrapper added to the node image by the caller)")
	fs.StringArrayVar(&f.nodeFiles, "node-file", nil, "HOSTPATH:NODEPATH[:MODE] to add to the node images "+
		"(octal mode, default 0755), e.g. the runc wrapper --node-runc names")
	fs.BoolVar(&f.nodeAdapt, "node-adapt", true, "adapt node images to this machine (ci/hack/rehearsal/nodeadapt): "+
		"containerd's restrict_oom_score_adj and the runc wrapper runc-capfilter; =false builds kind's node as published")
	fs.StringSliceVar(&f.only, "only", nil,
		"build only these `REF`s (as labctl images lists them; a node's tag without the digest matches)")
	fs.BoolVar(&f.planOnly, "plan", false, "print what would be built and how, build nothing")
	fs.BoolVar(&f.basesOnly, "bases-only", false,
		"make only the Debian root file systems and base images (network-bound minutes; can run beside a long build)")
}

// runImages is `rehearse images` once its flags are parsed: it prints the
// plan (--plan), or builds it and writes the bundle and the report.
func runImages(ctx context.Context, s streams, f *imagesFlags) error {
	plan, err := f.plan()
	if err != nil {
		return err
	}
	out := s.out
	if f.planOnly {
		plan.Write(out)
		return nil
	}
	root, err := f.cacheDir.dir()
	if err != nil {
		return err
	}
	if f.bundle == "" {
		f.bundle = filepath.Join(root, "bundle")
	}
	log := progressLog(s.errOut)
	d := docker.CLI{}
	bo, err := f.buildOptions(root, d, log)
	if err != nil {
		return err
	}
	rep := imagebuild.Build(ctx, bo, plan)
	idx, werr := imagebuild.WriteBundle(ctx, d, f.bundle, plan, rep, log)
	rep.Write(out)
	if werr != nil {
		return werr
	}
	fmt.Fprintf(out, "\nbundle %s: %d images, %d charts (index %s); cache %s\n",
		f.bundle, len(idx.Images), len(idx.Charts), images.IndexFile, root)
	return notBuilt(rep)
}

// plan is what to build: every image of the lab, or --only's.
func (f *imagesFlags) plan() (imagebuild.Plan, error) {
	l, err := rehearsalLab(f.file)
	if err != nil {
		return imagebuild.Plan{}, err
	}
	list, err := images.List(l)
	if err != nil {
		return imagebuild.Plan{}, err
	}
	plan := imagebuild.PlanFor(images.Sorted(list))
	if len(f.only) > 0 {
		plan = plan.Only(f.only)
	}
	return plan, nil
}

// buildOptions are the builder's options from the flags; the node files
// and git directories given are checked here, before anything is built.
func (f *imagesFlags) buildOptions(root string, d docker.CLI, log *slog.Logger) (imagebuild.Options, error) {
	extra, err := imagebuild.NodeFiles(f.nodeFiles)
	if err != nil {
		return imagebuild.Options{}, err
	}
	git, err := imagebuild.ParseGitDirs(f.gitDirs)
	if err != nil {
		return imagebuild.Options{}, err
	}
	return imagebuild.Options{Root: root, Docker: d, Log: log, KindGitDir: f.kindGit, KubeNetworkPoliciesGitDir: f.knpGit,
		GitDirs: git, RuncBinary: f.runc, NodeExtra: extra, NodeAdapt: f.nodeAdapt, BasesOnly: f.basesOnly}, nil
}

// notBuilt fails the command when an image was not built, naming each;
// the report printed before says why and where each log is.
func notBuilt(rep imagebuild.Report) error {
	failed := rep.Failed()
	if len(failed) == 0 {
		return nil
	}
	var refs []string
	for _, r := range failed {
		refs = append(refs, r.Ref)
	}
	return errors.New("not built: " + strings.Join(refs, ", ") + " (see the report above for why and where each log is)")
}

// rehearsalLab is the lab rehearse images acts on: -f, or the
// rehearsal's own lab (the seed lab on one Kubernetes version).
func rehearsalLab(file string) (*lab.Lab, error) {
	if file == "" {
		return lab.Parse(rehearsal.LabYAML)
	}
	return lab.Load(file)
}
