package main

import (
	"fmt"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/state"
)

// managementName selects the management cluster in `labctl kubeconfig`.
const managementName = "management"

func init() {
	var f labFlags
	var pathOnly bool
	cmd := &cobra.Command{
		Use:   "kubeconfig TENANT",
		Short: "Print a tenant's admin kubeconfig (or \"management\" for the kind cluster)",
		Example: `  labctl kubeconfig tenant-a > a.yaml
  kubectl --kubeconfig "$(labctl kubeconfig tenant-b --path)" get nodes`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d := state.Dir(f.stateDir)
			name := args[0]
			p := d.Kubeconfig(name)
			if name == managementName {
				p = d.ManagementKubeconfig()
			} else if l, err := d.ReadLab(); err == nil && l.Tenant(name) == nil {
				return fmt.Errorf("lab %s has no tenant %q: use one of %v or %q", l.Name, name, l.TenantNames(), managementName)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return fmt.Errorf("no kubeconfig for %s in %s (has `labctl up` reached stage tenants?): %w", name, d, err)
			}
			if pathOnly {
				fmt.Fprintln(cmd.OutOrStdout(), p)
				return nil
			}
			_, err = cmd.OutOrStdout().Write(data)
			return err
		},
		ValidArgsFunction: func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
			l, err := state.Dir(f.stateDir).ReadLab()
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return slices.Concat(l.TenantNames(), []string{managementName}), cobra.ShellCompDirectiveNoFileComp
		},
	}
	f.register(cmd, false)
	cmd.Flags().BoolVar(&pathOnly, "path", false, "print the file's path instead of its content")
	root.AddCommand(cmd)
}
