package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/testenv/hamidouble"
)

func soloLab(t *testing.T, name string) *lab.Lab {
	t.Helper()
	l, err := lab.Parse([]byte("name: " + name + "\ntenants:\n- name: solo\n  workers:\n  - name: w1\n    gpus: [{model: L4, count: 1}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// realHAMi is the HAMi scheduler binary the environments of these tests
// run instead of the double ($GPU_LAB_HAMI_BINARY), empty for the double.
func realHAMi() string { return os.Getenv(EnvHAMiBinary) }

// skipUnlessDouble skips a test whose subject is the protocol double itself
// when the environment runs a real HAMi.
func skipUnlessDouble(t *testing.T, e *Env) {
	t.Helper()
	if !e.RunsDouble() {
		t.Skipf("this test is about the protocol double; the environment runs %s", e.HAMi())
	}
}

// HAMi's scheduler runs with the lab's command line, and the double takes
// exactly HAMi's flags: a flag the lab would render that the HAMi binary
// does not know stops the start before anything started
// (checkHAMiCommandLine), naming the flag and the binary, instead of being
// ignored or failing after the boot. A real HAMi (v2.10.0) answers the same
// way: cobra's "unknown flag" error, exit status 255.
func TestUnknownHAMiFlagFailsTheStart(t *testing.T) {
	t.Parallel()
	began := time.Now()
	e, err := Start(context.Background(), soloLab(t, "unknown-flag"), Options{BinDir: t.TempDir(), Log: progress(),
		extraHAMiArgs: []string{"--no-such-hami-flag=1"}})
	if err == nil {
		_ = e.Stop()
		t.Fatal("the environment started although HAMi's command line had a flag HAMi does not know")
	}
	t.Logf("start error after %s: %v", time.Since(began).Round(time.Millisecond), err)
	wants := []string{"unknown flag: --no-such-hami-flag", "before anything started", "--no-such-hami-flag=1 --help"}
	if realHAMi() == "" {
		wants = append(wants, hamidouble.Banner)
	}
	for _, want := range wants {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("start error lacks %q:\n%v", want, err)
		}
	}
	if ps := e.Processes(); len(ps) > 0 {
		t.Errorf("processes were started before HAMi's command line was checked: %v", ps)
	}
}

// doubleAsScheduler copies the double's labctl under HAMi's binary name, so
// doubleAsScheduler builds the double as a program under HAMi's binary name, so
func doubleAsScheduler(t *testing.T) string {
	t.Helper()
	bin, err := doubleAsSchedulerIn(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// doubleAsSchedulerIn builds the double as a program called like HAMi's
// scheduler (ci/testenv/hamidouble/hamischeduler) into dir, named scheduler.
func doubleAsSchedulerIn(dir string) (string, error) {
	bin := filepath.Join(dir, "scheduler")
	cmd := exec.Command("go", "build", "-o", bin, "./ci/testenv/hamidouble/hamischeduler")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=readonly -buildvcs=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./ci/testenv/hamidouble/hamischeduler: %w\n%s", err, out)
	}
	return bin, nil
}

// hamiDropsIn starts the solo environment with a HAMi scheduler binary
// instead of the double: $GPU_LAB_HAMI_BINARY's when set, else the double's
// labctl under HAMi's name (no HAMi binary can be downloaded here), so
// checkHAMiBinaryDropsIn needs no environment of its own.
func hamiDropsIn(opts Options, dir string) (Options, error) {
	if opts.HAMiBinary != "" {
		return opts, nil
	}
	bin, err := doubleAsSchedulerIn(dir)
	if err != nil {
		return opts, fmt.Errorf("the double under HAMi's name: %w", err)
	}
	opts.HAMiBinary, opts.DoubleBinary = bin, ""
	return opts, nil
}

// Any HAMi scheduler binary drops in: it gets the command line, environment
// and files the double gets, with no subcommand, and the environment is
// ready once it has registered every card. The backend then names that
// binary, not the double, and the double's test controls say they are not
// there. bin is the binary the environment was started with.
func checkHAMiBinaryDropsIn(t *testing.T, e *Env, bin string) {
	checkBinaryNamed(t, e.HAMi(), bin)
	for _, banned := range []string{"protocol test double", DoubleName} {
		if strings.Contains(e.Backend(), banned) {
			t.Errorf("backend line names %q although a HAMi binary ran:\n%s", banned, e.Backend())
		}
	}
	if !strings.Contains(e.Backend(), e.HAMi()) || HAMiOfBackend(e.Backend()) != e.HAMi() {
		t.Errorf("backend line %q does not name %q", e.Backend(), e.HAMi())
	}
	if err := e.Double("solo").SetFaults(hamidouble.Faults{NoMutation: true}); err == nil {
		t.Errorf("faults on a real HAMi were taken")
		_ = e.Double("solo").SetFaults(hamidouble.Faults{}) // the checks after this one need it healthy
	} else if !strings.Contains(err.Error(), "not the protocol double") {
		t.Errorf("faults on a real HAMi: %v", err)
	}
	var found bool
	for _, p := range e.Processes() {
		if p.Name == "solo/hami-scheduler" {
			found = true
			log, _ := os.ReadFile(p.Log)
			if first := strings.SplitN(string(log), "\n", 3); len(first) < 2 || !strings.HasPrefix(first[1], "# "+bin+" --http_bind=127.0.0.1:") {
				t.Errorf("HAMi's command line is not the binary with HAMi's flags: %q", first)
			}
		}
	}
	if !found {
		t.Errorf("no solo/hami-scheduler process among %v", e.Processes())
	}
}

// $GPU_LAB_HAMI_BINARY chooses the binary when Options.HAMiBinary is empty,
// and the option wins over it. The test hands Start its own environment
// (Options.getenv) instead of setting the process's, so it runs beside the
// environments booting in the background.
func TestHAMiBinaryFromTheEnvironment(t *testing.T) {
	t.Parallel()
	bin := doubleAsScheduler(t)
	var asked []string
	getenv := func(name string) string {
		asked = append(asked, name)
		if name == EnvHAMiBinary {
			return bin
		}
		return ""
	}
	b, err := resolveHAMi(context.Background(), Options{getenv: getenv}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.double || b.bin != bin || !strings.HasPrefix(b.name, "HAMi scheduler from "+bin+" (sha256:") {
		t.Errorf("with $%s=%s: %+v, want that binary, named by its path and digest", EnvHAMiBinary, bin, b)
	}
	if !slices.Contains(asked, EnvHAMiBinary) {
		t.Errorf("resolveHAMi read %v from the environment, want $%s", asked, EnvHAMiBinary)
	}
	other := doubleAsScheduler(t)
	if b, err := resolveHAMi(context.Background(), Options{HAMiBinary: other, getenv: getenv}, nil); err != nil || b.bin != other {
		t.Errorf("Options.HAMiBinary=%s beside $%s: %+v, %v; want the option's binary", other, EnvHAMiBinary, b, err)
	}
}

// Every line the double process writes says it is the double.
func TestDoubleProcessNamesItselfOnEveryLine(t *testing.T) {
	t.Parallel()
	e := sharedEnv(t)
	skipUnlessDouble(t, e)
	for _, p := range e.Processes() {
		if !strings.HasSuffix(p.Name, "/hami-scheduler") {
			continue
		}
		log, err := os.ReadFile(p.Log)
		if err != nil {
			t.Fatal(err)
		}
		lines := 0
		for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
			if strings.HasPrefix(line, "# ") { // the environment's header: time and command line
				continue
			}
			lines++
			if !strings.Contains(line, hamidouble.Banner) {
				t.Errorf("%s: a line does not name the double: %q", p.Name, line)
			}
		}
		if lines == 0 {
			t.Errorf("%s wrote nothing", p.Name)
		}
	}
}
