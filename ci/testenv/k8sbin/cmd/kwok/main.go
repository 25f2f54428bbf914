// Command kwok runs KWOK linked as a library at the same Kubernetes version as
// the rest of the test environment. KWOK's command reads its logger and
// configuration from the context, so both are put there before the command
// is built; a bare command exits at once ("Unable to get from context").
//
// `kwok stages` prints the stage set kwokctl would install by default (node
// initialise, lease heartbeat, fast pod lifecycle); plain kwok has none and
// fails with "no stages found" without them.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	nodefast "sigs.k8s.io/kwok/kustomize/stage/node/fast"
	nodelease "sigs.k8s.io/kwok/kustomize/stage/node/heartbeat-with-lease"
	podfast "sigs.k8s.io/kwok/kustomize/stage/pod/fast"
	"sigs.k8s.io/kwok/pkg/config"
	"sigs.k8s.io/kwok/pkg/kwok/cmd"
	"sigs.k8s.io/kwok/pkg/log"
	"sigs.k8s.io/kwok/pkg/utils/signals"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "stages" {
		docs := []string{
			nodefast.DefaultNodeInit,
			nodelease.DefaultNodeHeartbeatWithLease,
			podfast.DefaultPodReady,
			podfast.DefaultPodComplete,
			podfast.DefaultPodDelete,
		}
		for i := range docs {
			docs[i] = strings.TrimSpace(docs[i])
		}
		fmt.Println(strings.Join(docs, "\n---\n"))
		return
	}

	global := pflag.NewFlagSet("global", pflag.ContinueOnError)
	// The subcommand's own flags are parsed later; ignore them here.
	global.ParseErrorsAllowlist.UnknownFlags = true
	global.Usage = func() {}

	ctx := signals.SetupSignalContext()
	ctx, logger := log.InitFlags(ctx, global)
	ctx, err := config.InitFlags(ctx, global)
	if err != nil {
		logger.Error("kwok: config flags", "err", err)
		os.Exit(1)
	}

	root := cmd.NewCommand(ctx)
	root.PersistentFlags().AddFlagSet(global)
	if err := root.ExecuteContext(ctx); err != nil {
		logger.Error("kwok: exit", "err", err)
		os.Exit(1)
	}
}
