package testenv

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/kubernetes"

	"github.com/gpu-lab/gpu-lab/ci/internal/testparallel"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

// The package's tests share two environments, each started once: in the
// background by TestMain when no -run narrows the tests (so they boot while
// the first tests run), else by their first user.
//
//   - shared: the default lab, for every test that only reads or adds its
//     own objects (sharedEnv); TestSharedEnvironment stops it last. Its
//     registration deadline is below HAMi's tick (registerWhenAdded);
//   - solo: one tenant, started with a HAMi scheduler binary dropped in
//     (hamiDropsIn) while other processes take its ports, then broken in
//     turn (TestSoloEnvironment).
//
// Each environment costs a few CPU-seconds to boot, so a test that only
// needs one started some way, and healthy, checks one of these instead of
// starting its own.
//
// In a whole run both boot at once, so the solo one's squatter takes ports
// from the shared one's components too, as any busy process would: a
// component that loses its port starts again on another (startBound).
var (
	shared = &lazyEnv{name: "shared", lab: func() (*lab.Lab, error) { return lab.Default(), nil }, options: registerWhenAdded}
	solo   = &lazyEnv{name: "solo", lab: func() (*lab.Lab, error) { return soloLabOf("solo", "L4") }, around: withTakenPorts, logTo: &soloLog,
		options: hamiDropsIn}
	envs = []*lazyEnv{shared, solo}
)

// lazyEnv is an environment started once, in the background.
type lazyEnv struct {
	name string
	lab  func() (*lab.Lab, error)
	// logTo receives its log; nil is stderr at info level.
	logTo io.Writer
	// around, when set, runs Start (tests that start it in a crowd).
	around func(start func(Options) (*Env, error), opts Options) (*Env, error)
	// options, when set, changes the Options it starts with; dir is a
	// directory of its own, removed once the environment stopped.
	options func(opts Options, dir string) (Options, error)
	// dir is options' directory; opts what Start was given.
	dir  string
	opts Options

	once sync.Once
	// done is closed once Start returned.
	done chan struct{}
	env  *Env
	err  error
	// stoppedBy names the test that stopped it for good.
	stoppedBy atomic.Pointer[string]
}

// begin starts the environment in the background unless it was begun.
func (l *lazyEnv) begin() {
	l.once.Do(func() {
		l.done = make(chan struct{})
		go func() {
			defer close(l.done)
			l.env, l.err = l.boot()
		}()
	})
}

// boot starts the environment from the inputs resolved before any test
// ran, not from the process environment.
func (l *lazyEnv) boot() (*Env, error) {
	in, err := ensureInputs()
	if err != nil {
		return nil, err
	}
	if l == shared && in.hamiBinary == "" {
		fmt.Fprintln(os.Stderr, DoubleNotice)
	}
	var w io.Writer = os.Stderr
	var level slog.Leveler = slog.LevelInfo
	if l.logTo != nil {
		w, level = l.logTo, nil
	}
	opts := Options{BinDir: in.bins, DoubleBinary: in.double, HAMiBinary: in.hamiBinary, getenv: in.getenv,
		Log: slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))}
	if l.options != nil {
		if l.dir, err = os.MkdirTemp("", "gpulab-test-"+l.name+"-"); err != nil {
			return nil, err
		}
		if opts, err = l.options(opts, l.dir); err != nil {
			return nil, fmt.Errorf("options of the %s environment: %w", l.name, err)
		}
	}
	l.opts = opts
	if l.around != nil {
		return l.around(l.start, opts)
	}
	return l.start(opts)
}

func (l *lazyEnv) start(opts Options) (*Env, error) {
	lb, err := l.lab()
	if err != nil {
		return nil, err
	}
	return Start(context.Background(), lb, opts)
}

// get waits for the environment or ends the test.
func (l *lazyEnv) get(t testing.TB) *Env {
	t.Helper()
	requireProcesses(t)
	l.begin()
	<-l.done
	if by := l.stoppedBy.Load(); by != nil {
		t.Fatalf("the %s local test environment was stopped by %s; a test that uses it runs before that (sequential) or inside it", l.name, *by)
	}
	if l.err != nil {
		if b, ok := l.logTo.(*syncBuffer); ok {
			t.Logf("the %s local test environment's log:\n%s", l.name, b.String())
		}
		t.Fatalf("start the %s local test environment: %v", l.name, l.err)
	}
	if err := l.env.Err(); err != nil {
		t.Fatalf("the %s local test environment: %v", l.name, err)
	}
	return l.env
}

// markStopped says the test stops the environment for good.
func (l *lazyEnv) markStopped(t testing.TB) { name := t.Name(); l.stoppedBy.Store(&name) }

// stop stops the environment if it was begun; it is not begun afterwards.
func (l *lazyEnv) stop() error {
	l.once.Do(func() {})
	if l.done == nil {
		return nil
	}
	<-l.done
	if l.dir != "" {
		defer os.RemoveAll(l.dir) // after its processes, which may run from it
	}
	if l.env == nil {
		return nil
	}
	if err := l.env.Stop(); err != nil {
		return fmt.Errorf("stop the %s local test environment: %w", l.name, err)
	}
	return nil
}

// envInputs are what the environments start from, resolved once before
// any test runs (TestMain) and passed as Options, $GPU_LAB_HAMI_BINARY
// included: no test reads or sets the process environment for them. Tests
// that need their own temporary or cache directory, or their own
// $GPU_LAB_HAMI_BINARY, pass it as an option (Options.tempRoot, cacheRoot,
// getenv) instead of setting TMPDIR, $GPU_LAB_BIN_DIR or the variable, so
// they run in parallel.
type envInputs struct {
	bins string
	// double is labctl for the protocol double, when hamiBinary is empty.
	double, hamiBinary string
}

// getenv is the environment Start sees: $GPU_LAB_HAMI_BINARY as it was
// when the inputs were resolved.
func (in envInputs) getenv(name string) string {
	if name == EnvHAMiBinary {
		return in.hamiBinary
	}
	return os.Getenv(name)
}

var inputs struct {
	once sync.Once
	in   envInputs
	err  error
}

func ensureInputs() (envInputs, error) {
	inputs.once.Do(func() {
		if inputs.in.bins, inputs.err = ensureBins(); inputs.err != nil {
			return
		}
		if inputs.in.hamiBinary = os.Getenv(EnvHAMiBinary); inputs.in.hamiBinary == "" {
			inputs.in.double, inputs.err = bincache.EnsureDoubleBinary(context.Background(), progress())
		}
	})
	return inputs.in, inputs.err
}

// progress prints the build line and readiness to the test's stderr, so a
// first run that builds the binaries for minutes says so.
func progress() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// buildProgress writes the progress of a build of the Kubernetes binaries
// to stderr and, when the tests run from a terminal, straight to it: go test
// holds a package's output until the package is done, and a first build
// takes many minutes. Without a terminal (CI), `labctl testenv build` runs
// before the tests and shows it (.ci/run).
func buildProgress() *slog.Logger {
	var w io.Writer = os.Stderr
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		w = io.MultiWriter(os.Stderr, tty)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

func requireProcesses(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts real Kubernetes processes; skipped with -short")
	}
}

var bins struct {
	once sync.Once
	dir  string
	err  error
}

// ensureBins returns the directory of the Kubernetes binaries, building
// them on the first call.
func ensureBins() (string, error) {
	bins.once.Do(func() { bins.dir, bins.err = EnsureBinaries(context.Background(), buildProgress()) })
	return bins.dir, bins.err
}

// binaries is ensureBins for a test.
func binaries(t testing.TB) string {
	t.Helper()
	dir, err := ensureBins()
	if err != nil {
		t.Fatalf("Kubernetes test binaries: %v", err)
	}
	return dir
}

// sharedEnv returns the shared default-lab environment.
func sharedEnv(t testing.TB) *Env {
	t.Helper()
	return shared.get(t)
}

// soloLabOf is a lab of one tenant "solo" with one worker w1 and one card
// of the model.
func soloLabOf(name, model string) (*lab.Lab, error) {
	return lab.Parse([]byte(fmt.Sprintf("name: %s\ntenants:\n- name: solo\n  workers:\n  - name: w1\n    gpus: [{model: %s, count: 1}]\n",
		name, model)))
}

func client(t testing.TB, e *Env, tenant string) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(e.RESTConfig(tenant))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// parallelTests is how many tests run at once unless -parallel says
// otherwise: go test's default (GOMAXPROCS, 2 on a small CI machine) would
// serialise tests that mostly wait (an environment booting, HAMi's
// registration tick). Each parallel test starts at most one environment of
// one tenant, so this also bounds how many boot at once.
const parallelTests = 8

func TestMain(m *testing.M) {
	if os.Getenv(fakeComponentEnv) != "" {
		runFakeComponent() // this binary is a component started by a test
	}
	flag.Parse()
	if err := testparallel.Default(flag.CommandLine, parallelTests); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// A whole run boots every environment while the first tests run; a run
	// narrowed by -run starts only those its tests ask for.
	if !testing.Short() && flag.Lookup("test.run").Value.String() == "" {
		if _, err := ensureInputs(); err != nil {
			fmt.Fprintln(os.Stderr, "local test environments:", err)
		}
		for _, l := range envs {
			l.begin()
		}
	}
	code := m.Run()
	for _, l := range envs {
		if err := l.stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}
