package hostdaemon

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/state"
)

// The daemon's directory is made by Claim, or one Claim made earlier; any
// other is refused before anything is written into it (the runtime
// wrapper dockerd runs as root among it).
func TestClaimRefusesDirectoriesItCannotTrust(t *testing.T) {
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, base string) string // returns the --dir
		want    string
	}{
		{"symlink on the way", func(t *testing.T, base string) string {
			real := filepath.Join(base, "real")
			mkdir(t, real, 0o755)
			if err := os.Symlink(real, filepath.Join(base, "link")); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(base, "link", "daemon")
		}, "symbolic link"},
		{"the directory itself a symlink", func(t *testing.T, base string) string {
			real := filepath.Join(base, "real")
			mkdir(t, real, 0o700)
			if err := os.Symlink(real, filepath.Join(base, "daemon")); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(base, "daemon")
		}, "symbolic link"},
		{"group-writable parent", func(t *testing.T, base string) string {
			p := filepath.Join(base, "shared")
			mkdir(t, p, 0o775)
			return filepath.Join(p, "daemon")
		}, "writable by group or others"},
		{"existing directory without the marker", func(t *testing.T, base string) string {
			p := filepath.Join(base, "daemon")
			mkdir(t, p, 0o700)
			if err := os.Symlink("/etc/passwd", filepath.Join(p, "daemon.json")); err != nil {
				t.Fatal(err)
			}
			return p
		}, "not made by"},
		{"another user's parent", func(t *testing.T, base string) string {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give a directory to another user")
			}
			p := filepath.Join(base, "theirs")
			mkdir(t, p, 0o755)
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(p, "daemon")
		}, "owned by uid 65534"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir := tc.prepare(t, base)
			c, err := Claim(context.Background(), dir, "test", nil)
			if err == nil {
				c.Close()
				t.Fatalf("Claim(%s) succeeded", dir)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Claim(%s) = %v, want an error saying %q", dir, err, tc.want)
			}
			if _, err := os.Lstat(filepath.Join(dir, "host-changes.json")); err == nil {
				t.Errorf("a record was written into %s", dir)
			}
		})
	}
}

// A directory Claim makes is root's (or this user's), mode 0700, marked;
// claiming it again in the same process continues the same record, and
// Close of an empty claim leaves nothing.
func TestClaimMakesAPrivateMarkedDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "daemon")
	c, err := Claim(context.Background(), dir, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("%s: %v, %v; want a directory of mode 0700", dir, fi, err)
	}
	if _, err := os.Lstat(c.layout().marker()); err != nil {
		t.Fatalf("no marker: %v", err)
	}
	if again, err := Claim(context.Background(), dir, "test", nil); err != nil || again != c {
		t.Fatalf("a second claim in the same process = %p, %v; want the first %p", again, err, c)
	}
	rec, err := ReadRecord(c.layout())
	if err != nil || rec.Owner.PID != os.Getpid() || !rec.Owner.Alive() {
		t.Fatalf("record %+v, %v: want this process as its owner", rec, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Fatalf("%s is left after an empty claim closed (%v)", dir, err)
	}
}

func mkdir(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.Mkdir(p, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // umask
		t.Fatal(err)
	}
}

// A record whose labctl was killed is undone by the next claim (the next
// `rehearse run` or `daemon up`), which says what it undid; a record whose
// labctl still runs is refused untouched.
func TestClaimUndoesAKilledOwnersRecordOnly(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "daemon")
	l := Layout{Dir: dir}
	if err := prepareDir(l); err != nil {
		t.Fatal(err)
	}
	limit := filepath.Join(base, "max_user_watches")
	if err := os.WriteFile(limit, []byte("524288\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	owner := exec.Command("sleep", "600")
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = owner.Process.Kill(); _ = owner.Wait() })
	p, err := procOf("labctl", owner.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	c := &Changes{l: l, rec: Record{Owner: p, Command: "rehearse run", Sysctls: []Raised{{Path: limit, Old: 192530, New: 524288}}}}
	if err := c.update(func(*Record) {}); err != nil {
		t.Fatal(err)
	}

	if _, err := Claim(context.Background(), dir, "test", nil); err == nil || !strings.Contains(err.Error(), "is using the daemon directory") {
		t.Fatalf("Claim while the owner runs = %v, want a refusal", err)
	}
	if n, _ := readInt(limit); n != 524288 {
		t.Fatalf("the running owner's limit was changed to %d", n)
	}

	// The killed owner's daemon left its data root, a lab's container in it.
	leftContainer := filepath.Join(l.dataRoot(), "containers", "f46a71fb", "config.v2.json")
	if err := os.MkdirAll(filepath.Dir(leftContainer), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(leftContainer, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	_ = owner.Process.Kill()
	_ = owner.Wait()
	var log bytes.Buffer
	c2, err := Claim(context.Background(), dir, "test", slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if n, _ := readInt(limit); n != 192530 {
		t.Errorf("the killed owner's limit is %d, want 192530 restored", n)
	}
	if _, err := os.Stat(l.dataRoot()); !os.IsNotExist(err) {
		t.Errorf("the killed owner's data root is left (%v): the next daemon would start its containers again", err)
	}
	for _, said := range []string{"undoing what an earlier rehearsal left", "restored a kernel limit",
		"removed the data root an earlier rehearsal left"} {
		if !strings.Contains(log.String(), said) {
			t.Errorf("Claim did not say %q:\n%s", said, log.String())
		}
	}
}

// Issue 38's try: an existing directory with a symlink planted where Start
// puts the runtime wrapper dockerd runs as root. Start refuses it before
// writing anything or making the namespace; the symlink's target is
// untouched.
func TestStartRefusesADirectoryWithAPlantedWrapper(t *testing.T) {
	if err := checkPrerequisites(); err != nil {
		t.Skip(err)
	}
	base := t.TempDir()
	dir, victim := filepath.Join(base, "daemon"), filepath.Join(base, "victim")
	l := Layout{Dir: dir}
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(l.wrapperPath()), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, l.wrapperPath()); err != nil {
		t.Fatal(err)
	}
	netns := fmt.Sprintf("gpu-lab-pw-%d", os.Getpid())
	_, err := Start(context.Background(), Options{Dir: dir, Netns: netns, Wrapper: "/bin/true"})
	t.Cleanup(func() { _ = Stop(context.Background(), StopOptions{Dir: dir}) })
	if err == nil || !strings.Contains(err.Error(), "not made by") {
		t.Fatalf("Start in a directory it did not make = %v, want a refusal", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the wrapper was written through the planted symlink: %q", b)
	}
	if _, err := os.Lstat(NetnsPath(netns)); !os.IsNotExist(err) {
		t.Errorf("the namespace was made (%v)", err)
	}
}

// A recorded lab state directory is removed only when labctl's marker says
// labctl made it: one without stays, and the error names it; a missing one
// is simply forgotten.
func TestUndoRemovesOnlyLabctlsLabStates(t *testing.T) {
	base := t.TempDir()
	l := Layout{Dir: filepath.Join(base, "daemon")}
	if err := prepareDir(l); err != nil {
		t.Fatal(err)
	}
	labctls, foreign, missing := filepath.Join(base, "labctls"), filepath.Join(base, "foreign"), filepath.Join(base, "missing")
	if err := state.Dir(labctls).Claim(state.RealLab); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(foreign, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := &Changes{l: l, rec: Record{LabStates: []string{labctls, foreign, missing}}}
	err := c.undoLabStates(slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), foreign) {
		t.Fatalf("undoLabStates = %v, want an error naming %s", err, foreign)
	}
	if _, err := os.Stat(labctls); !os.IsNotExist(err) {
		t.Errorf("labctl's state directory is left (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(foreign, "notes.txt")); err != nil {
		t.Errorf("the directory labctl did not make was touched: %v", err)
	}
	if got := c.record().LabStates; len(got) != 1 || got[0] != foreign {
		t.Errorf("record keeps %q, want only %s", got, foreign)
	}
}
