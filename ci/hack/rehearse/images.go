package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild"
	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// newImagesCommand is `rehearse images`.
func newImagesCommand() *cobra.Command {
	var (
		file, bundle, kindGit, knpGit, runc string
		only, nodeFiles, gitDirs            []string
		planOnly, basesOnly, nodeAdapt      bool
		cacheDir                            cacheFlag
	)
	cmd := &cobra.Command{
		Use:   "images",
		Short: "Build every image of the lab from its pinned sources (cached), and write them as a bundle for `labctl up --images`",
		Long: `Build, or reuse from the cache, every image the lab runs, from pinned upstream sources only: the
Kubernetes release binaries and the other Go programs in module mode through the Go module proxy,
the OS userland from Debian's packages (debootstrap; run as root), kind node images the way kind
v0.33.0 makes them. Images are built on the Docker daemon DOCKER_HOST names (the machine's own by
default), tagged with the names ` + "`labctl images`" + ` lists, and saved into the bundle directory
(index.json merged: charts and images already there stay). A first run takes hours on 2 cores; a
second reuses every finished step (cache under ~/.cache/gpu-lab/rehearsal, or --cache) and takes
minutes. The report lists every image (built, reused, or not built and why, with its log) and every
difference from upstream's published images.`,
		Example: `  rehearse images --bundle ./bundle --kind-git-dir /path/to/kind.git --kube-network-policies-git-dir /path/to/knp.git
  rehearse images --plan                           # what would be built, and how
  rehearse images --only kindest/node:v1.37.0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := rehearsalLab(file)
			if err != nil {
				return err
			}
			list, err := images.List(l)
			if err != nil {
				return err
			}
			plan := imagebuild.PlanFor(images.Sorted(list))
			if len(only) > 0 {
				plan = plan.Only(only)
			}
			out := cmd.OutOrStdout()
			if planOnly {
				plan.Write(out)
				return nil
			}
			root, err := cacheDir.dir()
			if err != nil {
				return err
			}
			if bundle == "" {
				bundle = filepath.Join(root, "bundle")
			}
			extra, err := imagebuild.NodeFiles(nodeFiles)
			if err != nil {
				return err
			}
			git, err := imagebuild.ParseGitDirs(gitDirs)
			if err != nil {
				return err
			}
			log := progressLog(cmd.ErrOrStderr())
			d := docker.CLI{}
			rep := imagebuild.Build(cmd.Context(), imagebuild.Options{Root: root, Docker: d, Log: log, KindGitDir: kindGit, KubeNetworkPoliciesGitDir: knpGit, GitDirs: git, RuncBinary: runc, NodeExtra: extra, NodeAdapt: nodeAdapt, BasesOnly: basesOnly}, plan)
			idx, werr := imagebuild.WriteBundle(cmd.Context(), d, bundle, plan, rep, log)
			rep.Write(out)
			if werr != nil {
				return werr
			}
			fmt.Fprintf(out, "\nbundle %s: %d images, %d charts (index %s); cache %s\n", bundle, len(idx.Images), len(idx.Charts), images.IndexFile, root)
			if failed := rep.Failed(); len(failed) > 0 {
				var refs []string
				for _, f := range failed {
					refs = append(refs, f.Ref)
				}
				return errors.New("not built: " + strings.Join(refs, ", ") + " (see the report above for why and where each log is)")
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&file, "file", "f", "", "lab file (YAML or JSON); empty means the rehearsal's lab (ci/hack/rehearsal/lab.yaml: the seed lab with the management node on the tenants' Kubernetes version)")
	f.StringVar(&bundle, "bundle", "", "bundle directory to write (default <cache>/bundle); an index.json there is merged")
	cacheDir.register(f, "")
	f.StringVar(&kindGit, "kind-git-dir", "", "git directory of kubernetes-sigs/kind holding kindnetd's commit (the module proxy does not serve it)")
	f.StringVar(&knpGit, "kube-network-policies-git-dir", "", "git directory of kubernetes-sigs/kube-network-policies holding the commit kindnetd requires (the module proxy does not serve it)")
	f.StringArrayVar(&gitDirs, "git-dir", nil, "OWNER/NAME=DIR: git directory of a repository built from git history at the lab's tag (the module proxy does not serve it), e.g. clastix/kamaji=/work/.mirror/clastix+kamaji/repo; repeat per repository")
	f.StringVar(&runc, "node-runc", "", "runc binary the node images' containerd runs (a capability-filtering wrapper added to the node image by the caller)")
	f.StringArrayVar(&nodeFiles, "node-file", nil, "HOSTPATH:NODEPATH[:MODE] to add to the node images (octal mode, default 0755), e.g. the runc wrapper --node-runc names")
	f.BoolVar(&nodeAdapt, "node-adapt", true, "adapt node images to this machine (ci/hack/rehearsal/nodeadapt): containerd's restrict_oom_score_adj and the runc wrapper runc-capfilter; =false builds kind's node as published")
	f.StringSliceVar(&only, "only", nil, "build only these `REF`s (as labctl images lists them; a node's tag without the digest matches)")
	f.BoolVar(&planOnly, "plan", false, "print what would be built and how, build nothing")
	f.BoolVar(&basesOnly, "bases-only", false, "make only the Debian root file systems and base images (network-bound minutes; can run beside a long build)")
	return cmd
}

// rehearsalLab is the lab rehearse images acts on: -f, or the
// rehearsal's own lab (the seed lab on one Kubernetes version).
func rehearsalLab(file string) (*lab.Lab, error) {
	if file == "" {
		return lab.Parse(rehearsal.LabYAML)
	}
	return lab.Load(file)
}
