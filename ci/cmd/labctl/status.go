package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/stages"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

func init() {
	var f labFlags
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Print one line per stage (from the state dir) and per tenant (asked live)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d := state.Dir(f.stateDir)
			l, err := d.ReadLab()
			if err != nil {
				return err
			}
			recs, err := d.ReadStages()
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "lab %s (%s), state dir %s\n", l.Name, orNone(d.Backend()), d)
			writeStageLines(w, recs)
			e, err := newEnv(l, &f, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			for _, t := range l.Tenants {
				fmt.Fprintf(w, "tenant %-10s %s\n", t.Name, stages.TenantStatus(cmd.Context(), e, t.Name))
			}
			return nil
		},
	}
	f.register(cmd, false)
	root.AddCommand(cmd)
}

// writeStageLines prints every stage in order, "not run" when unrecorded.
func writeStageLines(w io.Writer, recs []state.StageRecord) {
	by := map[string]state.StageRecord{}
	for _, r := range recs {
		by[r.Name] = r
	}
	for _, n := range stages.Names {
		r, ok := by[n]
		if !ok {
			fmt.Fprintf(w, "stage  %-8s not run\n", n)
			continue
		}
		fmt.Fprintf(w, "stage  %-8s %-7s %8s  %s  %s\n", n, r.Status, r.Duration.Round(100*time.Millisecond),
			r.Started.UTC().Format("15:04:05Z"), r.Message)
	}
}

func orNone(s string) string {
	if s == "" {
		return "backend unknown"
	}
	return s
}
