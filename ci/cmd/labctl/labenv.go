package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/internal/helm"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/stages"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// labFlags are the flags every lab command shares.
type labFlags struct {
	file     string
	stateDir string
	verbose  bool
}

func (f *labFlags) register(cmd *cobra.Command, withFile bool) {
	if withFile {
		cmd.Flags().StringVarP(&f.file, "file", "f", "", "lab file (default: the lab the state dir records, "+
			"else the embedded seed lab); must be that lab when the state dir has one")
	}
	cmd.Flags().StringVar(&f.stateDir, "state-dir", state.DefaultDir, "state directory labctl made (kubeconfigs, stage records, diagnostics)")
	cmd.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "print more: debug logs on stderr")
	if cmd.Long == "" {
		cmd.Long = cmd.Short + "."
	}
	cmd.Long += "\n\n" + labRule
}

// registerLabSource registers only -f and --state-dir, for the commands
// that read which lab and nothing else of the state dir (plan, images).
func (f *labFlags) registerLabSource(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.file, "file", "f", "", "lab file (default: the lab the state dir records, "+
		"else the embedded seed lab); must be that lab when the state dir has one")
	cmd.Flags().StringVar(&f.stateDir, "state-dir", state.DefaultDir,
		"state directory whose recorded lab this command uses, when it records one")
	if cmd.Long == "" {
		cmd.Long = cmd.Short + "."
	}
	cmd.Long += "\n\n" + labRule
}

// labRule is resolveLab's rule as every command's --help states it.
const labRule = `Which lab: a state dir labctl made (--state-dir, default ` + state.DefaultDir + `) is the lab it
records (resolved-lab.yaml); if that cannot be read, labctl stops and names the file. -f must
then be that same lab: a different one is refused, naming both — except that up takes the
recorded lab with tenants added or removed at the end of its list, or workers added to or removed
from a running tenant: it removes only what goes and builds only what is added. Only where
no state dir records a lab yet (up, run, testenv up, plan, images) does -f, else the embedded
seed lab, decide.`

// stateUse is what a command does with the state dir.
type stateUse int

const (
	// needsState: the command acts on what the state dir records (down,
	// status, shell, kubeconfig, test): a dir without a recorded lab is an
	// error.
	needsState stateUse = iota
	// makesState: the command makes or resumes a state dir (up, run,
	// testenv up), or shows what it would make (plan, images): without a
	// recorded lab, -f or the seed lab decides.
	makesState
	// changesState: makesState, and a recorded lab may also be changed by
	// -f where up applies it to the running lab (lab.Changes: tenants added
	// or removed at the end of the list, workers added or removed).
	changesState
)

// resolveLab is the one rule for which lab a command acts on (labRule).
// A recorded lab that cannot be read is an error naming the file and the
// fix, never a fallback; -f that is not the recorded lab is refused with
// both names.
func resolveLab(file string, d state.Dir, use stateUse) (*lab.Lab, error) {
	recorded, err := recordedLab(d, use)
	if err != nil {
		return nil, err
	}
	if recorded == nil {
		return lab.Load(file) // "" is the embedded seed lab
	}
	if file == "" {
		return recorded, nil
	}
	given, err := lab.Load(file)
	if err != nil {
		return nil, err
	}
	a, aerr := yaml.Marshal(given)
	b, berr := yaml.Marshal(recorded)
	if aerr == nil && berr == nil && bytes.Equal(a, b) {
		return recorded, nil
	}
	why := ""
	if use == changesState {
		c, err := lab.Changes(recorded, given)
		if err == nil && !c.None() {
			return given, nil
		}
		if err != nil {
			why = ": " + err.Error()
		}
	}
	return nil, fmt.Errorf("lab file %s (lab %q) is not the lab state dir %s records (%s, lab %q)%s: "+
		"`labctl down --state-dir %s` removes that lab first; or leave out -f, or pass another --state-dir",
		file, given.Name, d, d.LabPath(), recorded.Name, why, d)
}

// recordedLab is the state dir's lab; nil when a command that makes state
// meets a dir that records none yet.
func recordedLab(d state.Dir, use stateUse) (*lab.Lab, error) {
	if use != needsState {
		if _, err := d.Marker(); errors.Is(err, state.ErrNotLabctl) {
			return nil, nil
		}
		if _, err := os.Stat(d.LabPath()); errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
	}
	return d.ReadLab()
}

// loadLab is resolveLab for this command's flags.
func (f *labFlags) loadLab(use stateUse) (*lab.Lab, error) {
	return resolveLab(f.file, state.Dir(f.stateDir), use)
}

func (f *labFlags) logger(w io.Writer) *slog.Logger {
	if !f.verbose {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// newEnv wires the real edges: the docker CLI (DOCKER_HOST), kind's Go API,
// the pinned helm CLI and client-go.
func newEnv(l *lab.Lab, f *labFlags, stderr io.Writer) (*stages.Env, error) {
	reach, err := stages.ReachFor(os.Getenv("DOCKER_HOST"))
	if err != nil {
		return nil, err
	}
	tm := stages.DefaultTimeouts()
	log := f.logger(stderr)
	return &stages.Env{
		Lab:      l,
		State:    state.Dir(f.stateDir),
		Docker:   docker.CLI{},
		Kind:     stages.NewKindProvider(tm.ClusterReady, log),
		Helm:     helm.CLI{Bin: os.Getenv("LABCTL_HELM")},
		Connect:  connect,
		Reach:    reach,
		Network:  stages.DefaultNetwork(),
		Timeouts: tm,
		Log:      log,
	}, nil
}

// connect builds clients from a kubeconfig; the lab's own clients are not
// throttled like kubectl's defaults (several tenants are polled at once).
func connect(kubeconfig []byte) (*stages.Clients, error) {
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = 50, 100
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &stages.Clients{Kube: kube, Dynamic: dyn}, nil
}
