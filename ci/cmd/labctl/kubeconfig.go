package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// managementName selects the management cluster in `labctl kubeconfig`.
const managementName = "management"

func newKubeconfigCommand(s streams) *cobra.Command {
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
			l, err := f.loadLab(needsState)
			if err != nil {
				return err
			}
			local := d.Kind() == state.Testenv
			p := d.Kubeconfig(name)
			if name == managementName {
				if local {
					return fmt.Errorf("state dir %s belongs to the local test environment, which has no management cluster: ask for a tenant", d)
				}
				p = d.ManagementKubeconfig()
			} else if l.Tenant(name) == nil {
				return fmt.Errorf("lab %s has no tenant %q: use one of %s, or %s for the management cluster",
					l.Name, name, strings.Join(l.TenantNames(), ", "), managementName)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				why := "has `labctl up` reached stage tenants?"
				if local {
					why = fmt.Sprintf("`labctl testenv up --state-dir %s` writes it", d)
				}
				return fmt.Errorf("no kubeconfig for %s in %s (%s): %w", name, d, why, err)
			}
			if pathOnly {
				fmt.Fprintln(s.out, p)
				return nil
			}
			_, err = s.out.Write(data)
			return err
		},
		ValidArgsFunction: func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
			d := state.Dir(f.stateDir)
			l, err := f.loadLab(needsState)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			if d.Kind() == state.Testenv {
				return l.TenantNames(), cobra.ShellCompDirectiveNoFileComp
			}
			return slices.Concat(l.TenantNames(), []string{managementName}), cobra.ShellCompDirectiveNoFileComp
		},
	}
	f.register(cmd, false)
	cmd.Flags().BoolVar(&pathOnly, "path", false, "print the file's path instead of its content")
	return cmd
}

// checkKubeconfigTenants compares `labctl test --kubeconfig TENANT=PATH`
// flags with the lab's tenants: a name the lab does not have, a tenant
// named twice and a tenant without a kubeconfig are each reported, naming
// the lab's tenants and where the lab came from (labFile, or the seed lab
// when it is empty), because the suite needs exactly one kubeconfig per
// tenant. Flags without '=' are left to the caller's own message.
func checkKubeconfigTenants(l *lab.Lab, flags []string, labFile string) error {
	source := fmt.Sprintf("lab %s (from %s)", l.Name, labFile)
	if labFile == "" {
		source = fmt.Sprintf("the seed lab %s (no -f given)", l.Name)
	}
	tenants := strings.Join(l.TenantNames(), ", ")
	seen := map[string]string{}
	var errs []error
	for _, kv := range flags {
		name, path, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		switch prev, dup := seen[name]; {
		case dup:
			errs = append(errs, fmt.Errorf("--kubeconfig %s=%s: tenant %s already has --kubeconfig %s=%s; "+
				"give one kubeconfig per tenant", name, path, name, name, prev))
		case l.Tenant(name) == nil:
			errs = append(errs, fmt.Errorf("--kubeconfig %s=%s: %s has no tenant %q; its tenants are %s. Use those names, "+
				"or describe your platform's tenants and GPUs in a lab file and pass it with -f (labctl validate checks it)",
				name, path, source, name, tenants))
		}
		seen[name] = path
	}
	var missing []string
	for _, t := range l.TenantNames() {
		if _, ok := seen[t]; !ok {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("no --kubeconfig for %s of %s: the suite needs one per tenant, e.g. "+
			"--kubeconfig %s=PATH; or pass a lab file (-f) that lists only your tenants",
			strings.Join(missing, ", "), source, missing[0]))
	}
	return errors.Join(errs...)
}
