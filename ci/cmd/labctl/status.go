package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/stages"
	"github.com/gpu-lab/gpu-lab/ci/state"
	"github.com/gpu-lab/gpu-lab/ci/testenv"
)

func newStatusCommand(s streams) *cobra.Command {
	var f labFlags
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Print one line per stage (from the state dir) and per tenant (asked live)",
		Long: `Print one line per stage of labctl up (from the state dir's stages.json) and one per
tenant, asked live: its API server and how many of its nodes are Ready. A state dir written by
labctl testenv up has no stages; its tenants answer only while that command runs.

Exits 0 when the lab is healthy — every stage done (or skipped because it existed) and every
tenant answering with all its nodes Ready — and 1 otherwise, after printing every line.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d := state.Dir(f.stateDir)
			l, err := f.loadLab(needsState)
			if err != nil {
				return err
			}
			recs, err := d.ReadStages()
			if err != nil {
				return err
			}
			e, err := newEnv(l, &f, s.errOut)
			if err != nil {
				return err
			}
			healthy := writeStatus(s.out, d, l, recs, func(tenant string) (string, bool) {
				if _, err := os.Stat(d.Kubeconfig(tenant)); err != nil && d.Kind() == state.Testenv {
					// stages.TenantStatus would blame stage tenants, which
					// the local environment does not have.
					return fmt.Sprintf("no kubeconfig: `labctl testenv up --state-dir %s` writes it", d), false
				}
				return stages.TenantStatus(cmd.Context(), e, tenant)
			})
			if !healthy {
				return exitError{code: 1}
			}
			return nil
		},
	}
	f.register(cmd, false)
	return cmd
}

// writeStatus prints the lab's header, its stages and one line per tenant
// (tenantStatus asks the tenant). The local test environment has no stages
// (`labctl testenv up` starts its processes in one step), so for its state
// dir the stage lines, which would all say "not run", are replaced by what
// keeps its tenants answering. It reports whether the lab is healthy: every
// stage done or skipped (a real lab) and every tenant healthy.
func writeStatus(w io.Writer, d state.Dir, l *lab.Lab, recs []state.StageRecord,
	tenantStatus func(tenant string) (string, bool)) (healthy bool) {
	backend := d.Backend()
	local := d.Kind() == state.Testenv
	if local && backend != "" {
		// The rest of the line lists its processes and differences; the
		// double's notice stays, so it is never taken for HAMi.
		name, _, _ := strings.Cut(backend, ":")
		backend = name + ": " + testenv.HAMiOfBackend(backend)
	}
	fmt.Fprintf(w, "lab %s (%s), state dir %s\n", l.Name, orNone(backend), d)
	if local {
		fmt.Fprintf(w, "no stages: the local test environment's tenants answer while `labctl testenv up --state-dir %s` runs\n", d)
	} else {
		healthy = writeStageLines(w, recs)
	}
	healthy = healthy || local
	for _, t := range l.Tenants {
		line, ok := tenantStatus(t.Name)
		healthy = healthy && ok
		if local && strings.Contains(line, "not answering") {
			line += fmt.Sprintf(": is `labctl testenv up --state-dir %s` still running?", d)
		}
		fmt.Fprintf(w, "tenant %-10s %s\n", t.Name, line)
	}
	return healthy
}

// writeStageLines prints every stage in order, "not run" when unrecorded,
// and reports whether every stage is done or was skipped as existing.
func writeStageLines(w io.Writer, recs []state.StageRecord) (allDone bool) {
	allDone = true
	by := map[string]state.StageRecord{}
	for _, r := range recs {
		by[r.Name] = r
	}
	for _, n := range stages.Names {
		r, ok := by[n]
		if !ok {
			fmt.Fprintf(w, "stage  %-8s not run\n", n)
			allDone = false
			continue
		}
		allDone = allDone && (r.Status == stages.StatusDone || r.Status == stages.StatusSkipped)
		fmt.Fprintf(w, "stage  %-8s %-7s %8s  %s  %s\n", n, r.Status, r.Duration.Round(100*time.Millisecond),
			r.Started.UTC().Format("15:04:05Z"), r.Message)
	}
	return allDone
}

func orNone(s string) string {
	if s == "" {
		return "backend unknown"
	}
	return s
}
