package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/state"
)

// ShellEnv is the environment `labctl shell` adds: KUBECONFIG_<TENANT> per
// tenant (upper case, '-' → '_'), KUBECONFIG_MANAGEMENT when the state dir
// has a management cluster (the local test environment has none), and
// KUBECONFIG listing every tenant then the management cluster, so kubectl's
// context list shows them all. Paths are absolute so the shell may cd
// anywhere.
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
	// kubectl fails on a KUBECONFIG entry that does not exist only when it
	// writes, but a variable naming a missing file misleads whoever reads it.
	if _, err := os.Stat(m); err == nil {
		env = append(env, "KUBECONFIG_MANAGEMENT="+m)
		all = append(all, m)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("management kubeconfig %s: %w", m, err)
	}
	return append(env, "KUBECONFIG="+strings.Join(all, string(os.PathListSeparator))), nil
}

// withoutKubeconfigVars drops inherited KUBECONFIG and KUBECONFIG_*: a
// shell opened from another lab's shell must not keep that lab's clusters.
func withoutKubeconfigVars(env []string) []string {
	var out []string
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k == "KUBECONFIG" || strings.HasPrefix(k, "KUBECONFIG_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func envName(s string) string {
	return strings.ToUpper(strings.ReplaceAll(s, "-", "_"))
}

func newShellCommand(s streams) *cobra.Command {
	var f labFlags
	cmd := &cobra.Command{
		Use:   "shell",
		Short: "Open $SHELL with KUBECONFIG_<TENANT> for every tenant and KUBECONFIG listing all",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d := state.Dir(f.stateDir)
			l, err := f.loadLab(needsState)
			if err != nil {
				return err
			}
			local := d.Kind() == state.Testenv
			for _, t := range l.TenantNames() {
				if _, err := os.Stat(d.Kubeconfig(t)); err != nil {
					if local {
						return fmt.Errorf("tenant %s has no kubeconfig in %s: run `labctl testenv up --state-dir %s` again", t, d, d)
					}
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
			note := ""
			if local {
				note = fmt.Sprintf("\nlocal test environment: its tenants answer while `labctl testenv up --state-dir %s` runs", d)
			}
			fmt.Fprintf(s.errOut, "lab %s: %s%s\n(exit the shell to return)\n", l.Name, strings.Join(env, "\n  "), note)
			c := exec.CommandContext(cmd.Context(), sh)
			c.Env = append(append(withoutKubeconfigVars(os.Environ()), env...), "LABCTL_LAB="+l.Name)
			c.Stdin, c.Stdout, c.Stderr = s.in, s.out, s.errOut
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
	return cmd
}
