package run

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// killedRunDir names the work directory of TestKilledRunHelper; set only
// in the process TestKilledRunIsUndoneByTheNext starts.
const killedRunDir = "GPU_LAB_TEST_KILLED_RUN_DIR"

// The process a SIGKILL ends: a rehearsal (with fakes) that has raised a
// kernel limit, made /lib/modules and started its daemon, and hangs in
// labctl up after saying so in DIR/up-started.
func TestKilledRunHelper(t *testing.T) {
	dir := os.Getenv(killedRunDir)
	if dir == "" {
		t.Skip("runs only as the process killRunInLabctlUp kills")
	}
	w := &world{t: t}
	w.during = func() {
		if err := os.WriteFile(filepath.Join(dir, "up-started"), nil, 0o644); err != nil {
			t.Error(err)
		}
		time.Sleep(time.Hour)
	}
	o, d := setupIn(t, w, dir)
	_, _ = Run(context.Background(), o, d)
	t.Error("Run returned although labctl up hangs")
}

// killRunInLabctlUp starts TestKilledRunHelper in a process of its own
// and kills it (SIGKILL) once its labctl up has claimed the lab's state
// directory and hangs; it returns the rehearsal's work directory.
func killRunInLabctlUp(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledRunHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), killedRunDir+"="+dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "up-started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the rehearsal did not reach labctl up:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n, _ := readInt(filepath.Join(dir, "max_user_watches")); n != 524288 {
		t.Fatalf("the killed rehearsal had not raised its limit (%d)", n)
	}
	if _, err := state.Dir(filepath.Join(dir, "run", "state")).Marker(); err != nil {
		t.Fatalf("the killed rehearsal's labctl up had not claimed its state directory: %v", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	return dir
}

// Issue 38's try: `rehearse run` is killed (SIGKILL) while labctl up runs.
// The next `rehearse daemon down` of its daemon directory finds the record
// and undoes what it left — the raised limit restored to its old value,
// the /lib/modules it made removed, the lab state directory whose lab
// went with the daemon removed — and says so.
func TestKilledRunIsUndoneByTheNext(t *testing.T) {
	dir := killRunInLabctlUp(t)
	watches, libModules := filepath.Join(dir, "max_user_watches"), filepath.Join(dir, "lib-modules")
	var log bytes.Buffer
	err := hostdaemon.Stop(context.Background(),
		hostdaemon.StopOptions{Dir: filepath.Join(dir, "daemon"), Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatalf("daemon down after the killed rehearsal: %v\n%s", err, log.String())
	}
	if n, err := readInt(watches); err != nil || n != 192530 {
		t.Errorf("%s = %d (%v) after daemon down, want its old value 192530", watches, n, err)
	}
	for _, gone := range []string{libModules, filepath.Join(dir, "run", "state")} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("%s, which the killed rehearsal made, is left (%v)", gone, err)
		}
	}
	for _, said := range []string{"restored a kernel limit", "removed the empty directory", "removed the lab state directory"} {
		if !strings.Contains(log.String(), said) {
			t.Errorf("daemon down did not say %q:\n%s", said, log.String())
		}
	}
}

// The next `rehearse run` itself, not only daemon down, undoes what a
// killed one left — its lab state directory too, which would otherwise be
// refused as a kept lab — and then runs the lab to its end.
func TestKilledRunIsUndoneByTheNextRun(t *testing.T) {
	dir := killRunInLabctlUp(t)
	w := &world{t: t}
	o, d := setupIn(t, w, dir)
	var log bytes.Buffer
	o.Log = slog.New(slog.NewTextHandler(&log, nil))
	if _, err := Run(context.Background(), o, d); err != nil {
		t.Fatalf("the rehearsal after a killed one: %v\n%s", err, log.String())
	}
	for _, said := range []string{"undoing what an earlier rehearsal left", "removed the lab state directory"} {
		if !strings.Contains(log.String(), said) {
			t.Errorf("the next rehearsal did not say %q:\n%s", said, log.String())
		}
	}
	if _, err := os.Stat(o.State); !os.IsNotExist(err) {
		t.Errorf("the lab state %s is left after the next rehearsal (%v)", o.State, err)
	}
}
