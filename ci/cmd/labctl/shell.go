package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/state"
)

// ShellEnv is the environment `labctl shell` adds: KUBECONFIG_<TENANT> per
// tenant (upper case, '-' → '_'), KUBECONFIG_MANAGEMENT, and KUBECONFIG
// listing every tenant then the management cluster, so kubectl's context
// list shows them all. Paths are absolute so the shell may cd anywhere.
func ShellEnv(d state.Dir, tenants []string) ([]string, error) {
	var env, all []string
	for _, t := range tenants {
		p, err := filepath.Abs(d.Kubeconfig(t))
		if err != nil {
			return nil, err
		}
		env = append(env, "KUBECONFIG_"+envName(t)+"="+p)
		all = append(all, p)
	}
	m, err := filepath.Abs(d.ManagementKubeconfig())
	if err != nil {
		return nil, err
	}
	env = append(env, "KUBECONFIG_MANAGEMENT="+m)
	all = append(all, m)
	return append(env, "KUBECONFIG="+strings.Join(all, string(os.PathListSeparator))), nil
}

func envName(s string) string {
	return strings.ToUpper(strings.ReplaceAll(s, "-", "_"))
}

func init() {
	var f labFlags
	cmd := &cobra.Command{
		Use:   "shell",
		Short: "Open $SHELL with KUBECONFIG_<TENANT> for every tenant and KUBECONFIG listing all",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d := state.Dir(f.stateDir)
			l, err := d.ReadLab()
			if err != nil {
				return err
			}
			for _, t := range l.TenantNames() {
				if _, err := os.Stat(d.Kubeconfig(t)); err != nil {
					return fmt.Errorf("tenant %s has no kubeconfig in %s yet: run `labctl up --state-dir %s`", t, d, d)
				}
			}
			env, err := ShellEnv(d, l.TenantNames())
			if err != nil {
				return err
			}
			sh := os.Getenv("SHELL")
			if sh == "" {
				sh = "/bin/sh"
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "lab %s: %s\n(exit the shell to return)\n", l.Name, strings.Join(env, "\n  "))
			c := exec.CommandContext(cmd.Context(), sh)
			c.Env = append(append(os.Environ(), env...), "LABCTL_LAB="+l.Name)
			c.Stdin, c.Stdout, c.Stderr = os.Stdin, cmd.OutOrStdout(), cmd.ErrOrStderr()
			if err := c.Run(); err != nil {
				if ee, ok := err.(*exec.ExitError); ok {
					return exitError{code: ee.ExitCode()}
				}
				return err
			}
			return nil
		},
	}
	f.register(cmd, false)
	root.AddCommand(cmd)
}
