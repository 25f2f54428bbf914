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

	"github.com/gpu-lab/gpu-lab/ci/rehearsal/hostdaemon"
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
		t.Skip("runs only as the process TestKilledRunIsUndoneByTheNext kills")
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

// Issue 38's try: `rehearse run` is killed (SIGKILL) while labctl up runs.
// The next `rehearse daemon down` of its daemon directory finds the record
// and undoes what it left — the raised limit restored to its old value,
// the /lib/modules it made removed — and says so.
func TestKilledRunIsUndoneByTheNext(t *testing.T) {
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
	// What setupIn gave the killed rehearsal.
	watches, libModules := filepath.Join(dir, "max_user_watches"), filepath.Join(dir, "lib-modules")
	if n, _ := readInt(watches); n != 524288 {
		t.Fatalf("the killed rehearsal had not raised %s (%d)", watches, n)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	var log bytes.Buffer
	err := hostdaemon.Stop(context.Background(), hostdaemon.StopOptions{Dir: filepath.Join(dir, "daemon"), Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatalf("daemon down after the killed rehearsal: %v\n%s", err, log.String())
	}
	if n, err := readInt(watches); err != nil || n != 192530 {
		t.Errorf("%s = %d (%v) after daemon down, want its old value 192530", watches, n, err)
	}
	if _, err := os.Stat(libModules); !os.IsNotExist(err) {
		t.Errorf("the /lib/modules the killed rehearsal made is left (%v)", err)
	}
	for _, said := range []string{"restored a kernel limit", "removed the empty directory"} {
		if !strings.Contains(log.String(), said) {
			t.Errorf("daemon down did not say %q:\n%s", said, log.String())
		}
	}
}
