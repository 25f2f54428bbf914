package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

func newPlanCommand(s streams) *cobra.Command {
	var (
		src    labFlags
		outDir string
		opts   render.Options
	)
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Print the resolved lab (tenants, workers, GPUs, ports, versions); with -o, write every rendered manifest",
		Example: `  labctl plan
  labctl plan -f lab.yaml -o /tmp/manifests`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := src.loadLab(makesState)
			if err != nil {
				return err
			}
			if err := printPlan(s.out, l); err != nil {
				return err
			}
			if outDir == "" {
				return nil
			}
			files, err := render.All(l, opts)
			if err != nil {
				return err
			}
			for _, f := range files {
				p := filepath.Join(outDir, filepath.FromSlash(f.Name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					return fmt.Errorf("write manifests: %w", err)
				}
				if err := os.WriteFile(p, f.Data, 0o644); err != nil {
					return fmt.Errorf("write manifests: %w", err)
				}
			}
			fmt.Fprintf(s.out, "\n%d manifests written to %s (management address %s)\n", len(files), outDir, opts.ManagementAddress)
			return nil
		},
	}
	f := cmd.Flags()
	src.registerLabSource(cmd)
	f.StringVarP(&outDir, "output", "o", "", "directory to write every rendered manifest into")
	f.StringVar(&opts.ManagementAddress, "management-address", render.PlaceholderManagementAddress,
		"IPv4 of the management node on the kind network, advertised by every tenant (the cluster stage detects the real one)")
	f.StringVar(&opts.APIServerAddress, "api-server-address", "",
		"kind networking.apiServerAddress (empty keeps kind's 127.0.0.1; DinD needs 0.0.0.0)")
	f.Int32Var(&opts.APIServerPort, "api-server-port", 0, "kind networking.apiServerPort (0 lets kind choose)")
	f.StringSliceVar(&opts.CertSANs, "cert-san", nil,
		"extra API server certificate name for the management and tenant clusters, e.g. docker (repeatable)")
	f.BoolVar(&opts.PublishNodePorts, "publish-node-ports", false, "map every tenant NodePort to the Docker host (kind extraPortMappings)")
	return cmd
}

// printPlan writes the resolved lab as a human-readable plan.
func printPlan(w io.Writer, l *lab.Lab) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "lab %s (%s)\n\n", l.Name, summary(l))
	for i, t := range l.Tenants {
		fmt.Fprintf(tw, "tenant %s\n", t.Name)
		fmt.Fprintf(tw, "  API server NodePort\t%d\n", t.Ports.APIServer)
		fmt.Fprintf(tw, "  konnectivity NodePort\t%d\n", t.Ports.Konnectivity)
		fmt.Fprintf(tw, "  pod CIDR\t%s\n", render.TenantPodCIDR(i))
		for _, wk := range t.Workers {
			// The registrar writes the count into both capacity and allocatable
			// (HAMi reads allocatable); the plan says so rather than imply one.
			fmt.Fprintf(tw, "  worker %s\tnode %s, %s %d in status capacity and allocatable\n",
				wk.Name, l.NodeName(t.Name, wk.Name), gpus.ResourceGPU, gpus.GPUCapacity(l, wk))
			for _, c := range wk.Cards() {
				fmt.Fprintf(tw, "    gpu %d: %s, %d MB, type %s\n", c.Index, c.Model, c.MemoryMB, c.Type)
			}
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintf(tw, "hami\n")
	fmt.Fprintf(tw, "  split count\t%d pods per card\n", l.HAMi.SplitCount)
	fmt.Fprintf(tw, "  node lock timeout\t%s\n\n", l.HAMi.NodeLockTimeout)
	v := l.Versions
	fmt.Fprintf(tw, "versions\n")
	for _, row := range [][2]string{
		{"kind module", lab.KindModuleVersion},
		{"kind node image (management)", v.KindNodeImage},
		{"tenant Kubernetes", v.Kubernetes},
		{"worker image", v.WorkerImage()},
		{"kube-scheduler (HAMi)", "registry.k8s.io/kube-scheduler:" + v.KubeSchedulerTag()},
		{"Kamaji chart", v.KamajiChart},
		{"Kamaji image", v.KamajiImage},
		{"cert-manager", v.CertManager},
		{"HAMi chart", v.HAMiChart},
		{"HAMi image", v.HAMiImage},
		{"HAMi mock device plugin", v.HAMiMockDevicePlugin},
		{"konnectivity", v.Konnectivity},
	} {
		fmt.Fprintf(tw, "  %s\t%s\n", row[0], row[1])
	}
	return tw.Flush()
}

// summary is the one-line description of a lab: counts and GPU models.
func summary(l *lab.Lab) string {
	workers, cards := 0, 0
	var models []string
	count := map[string]int{}
	for _, t := range l.Tenants {
		workers += len(t.Workers)
		for _, w := range t.Workers {
			for _, c := range w.Cards() {
				cards++
				if count[c.Model] == 0 {
					models = append(models, c.Model)
				}
				count[c.Model]++
			}
		}
	}
	parts := make([]string, len(models))
	for i, m := range models {
		parts[i] = fmt.Sprintf("%d× %s", count[m], m)
	}
	return fmt.Sprintf("%s, %s, %s: %s; Kubernetes %s",
		lab.Plural(len(l.Tenants), "tenant", "tenants"), lab.Plural(workers, "worker", "workers"), lab.Plural(cards, "GPU", "GPUs"),
		strings.Join(parts, ", "), l.Versions.Kubernetes)
}
