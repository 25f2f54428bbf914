package main

import (
	"context"
	"fmt"

	"dagger/gpu-lab/internal/dagger"
	"dagger/gpu-lab/labcmd"
)

// Lab is a lab to bring up in one Dagger session: the labctl and helm binaries, the
// resolved lab file, the last stage to run and the module's run options.
// Stage functions only choose how far to go; terminal, state and test start
// a fresh Docker daemon and run the chosen stages (a lab lives as long as
// the call that built it).
type Lab struct {
	// +private
	Labctl *dagger.File
	// +private
	Helm *dagger.File
	// +private
	Config *dagger.File
	// +private
	Last string
	// +private
	KeepGoing bool
	// +private
	Run string
	// +private
	Parallel int
	// +private
	Charts *dagger.Directory
}

// Lab prepares a lab for partial runs and debugging with the module's
// options, e.g. `dagger call --config=lab.yaml lab tenants terminal`.
func (m *GpuLab) Lab(ctx context.Context) (*Lab, error) {
	config, err := m.labFile(ctx)
	if err != nil {
		return nil, err
	}
	return &Lab{Labctl: m.Labctl(), Helm: m.helm(), Config: config, KeepGoing: m.KeepGoing, Run: m.Run, Parallel: m.Parallel,
		Charts: m.Charts}, nil
}

// labFile is the lab file with the version overrides written into it.
func (m *GpuLab) labFile(ctx context.Context) (*dagger.File, error) {
	overrides, err := labcmd.ParseOverrides(m.Versions)
	if err != nil || len(overrides) == 0 {
		return m.Config, err
	}
	raw, err := m.Config.Contents(ctx)
	if err != nil {
		return nil, fmt.Errorf("lab file: %w", err)
	}
	merged, err := labcmd.ApplyOverrides([]byte(raw), overrides)
	if err != nil {
		return nil, err
	}
	return dag.File("lab.yaml", string(merged)), nil
}

// through returns a copy that runs up to stage (or further, if a later stage
// was already chosen).
func (l *Lab) through(stage string) *Lab {
	c := *l
	c.Last = labcmd.Later(l.Last, stage)
	return &c
}

// Cluster runs the lab up to the kind management cluster.
func (l *Lab) Cluster() *Lab { return l.through("cluster") }

// Kamaji runs the lab up to cert-manager and Kamaji on the management cluster.
func (l *Lab) Kamaji() *Lab { return l.through("kamaji") }

// Tenants runs the lab up to the tenant control planes (TenantControlPlanes
// Ready, kubeconfigs fetched).
func (l *Lab) Tenants() *Lab { return l.through("tenants") }

// Workers runs the lab up to the worker containers joined to their tenants.
func (l *Lab) Workers() *Lab { return l.through("workers") }

// Hami runs the lab up to HAMi's scheduler, webhook and device plugin in
// each tenant.
func (l *Lab) Hami() *Lab { return l.through("hami") }

// Gpus runs the lab up to the simulated GPUs registered with HAMi.
func (l *Lab) Gpus() *Lab { return l.through("gpus") }

// Up runs every stage (the same as gpus).
func (l *Lab) Up() *Lab { return l.through(labcmd.Stages[len(labcmd.Stages)-1]) }

// LabFile is the resolved lab file (after version overrides).
func (l *Lab) LabFile() *dagger.File { return l.Config }

// Plan prints the resolved lab: tenants, workers, GPUs, ports and every
// pinned version. No Docker needed.
func (l *Lab) Plan(ctx context.Context) (string, error) {
	return l.tool().WithExec(labcmd.Plan("")).Stdout(ctx)
}

// Manifests returns every manifest labctl renders for the lab (kind config,
// TenantControlPlanes, HAMi values, GPU registrations). No Docker needed.
func (l *Lab) Manifests() *dagger.Directory {
	return l.tool().WithExec(labcmd.Plan(labcmd.ManifestsDir)).Directory(labcmd.ManifestsDir)
}

// Validate checks the lab file and prints every problem at once. No Docker
// needed.
func (l *Lab) Validate(ctx context.Context) (string, error) {
	ctr, err := l.tool().WithExec(labcmd.Validate(), dagger.ContainerWithExecOpts{Expect: dagger.ReturnTypeAny}).Sync(ctx)
	if err != nil {
		return "", err
	}
	code, err := ctr.ExitCode(ctx)
	if err != nil {
		return "", err
	}
	out, err := ctr.CombinedOutput(ctx)
	if err != nil {
		return "", err
	}
	if code != 0 {
		return "", fmt.Errorf("lab file is invalid:\n%s", out)
	}
	return out, nil
}

// Terminal brings the lab up to the chosen stage and opens a shell in the
// runner container with labctl, helm, kubectl, the docker CLI on the lab's daemon
// and one kubeconfig per tenant (KUBECONFIG lists them all). The lab stays
// up until the shell exits. A failing stage still opens the shell.
// +cache="never"
func (l *Lab) Terminal(ctx context.Context) (*dagger.Container, error) {
	s, err := l.start(ctx)
	if err != nil {
		return nil, err
	}
	defer s.stop(ctx)
	kubectl, err := kubectl(ctx)
	if err != nil {
		return nil, err
	}
	return s.ctr.
		WithFile("/usr/local/bin/kubectl", kubectl, dagger.ContainerWithFileOpts{Permissions: 0o755}).
		Terminal(dagger.ContainerTerminalOpts{Cmd: labcmd.ShellScript()}).
		Sync(ctx)
}

// State brings the lab up to the chosen stage and returns labctl's state
// directory (stages.json, kubeconfigs valid only while the lab ran) and the
// stage logs.
// +cache="never"
func (l *Lab) State(ctx context.Context) (*dagger.Directory, error) {
	s, err := l.start(ctx)
	if err != nil {
		return nil, err
	}
	defer s.stop(ctx)
	return s.ctr.Directory(labcmd.StateDir).
		WithDirectory("logs", s.logs()).
		Sync(ctx)
}

// Test brings the lab up to the chosen stage (all of them when none was
// chosen), runs the suite (the module's --run and --parallel) and returns
// the reports with labctl's exit code.
// +cache="never"
func (l *Lab) Test(ctx context.Context) (*LabResult, error) {
	if l.Last == "" {
		l = l.Up()
	}
	s, err := l.start(ctx)
	if err != nil {
		return nil, err
	}
	defer s.stop(ctx)
	return s.test(ctx, labcmd.Suite{Run: l.Run, Parallel: l.Parallel})
}
