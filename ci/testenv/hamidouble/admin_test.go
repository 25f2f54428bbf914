package hamidouble

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A double in another process is controlled through its admin routes as an
// in-process one is: faults set through Remote change the next /filter,
// State reports the configuration it runs with and its counters, and a
// malformed request is refused naming the double.
func TestRemoteControlsTheDouble(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{NodeLockTimeout: 7 * time.Minute, AdminToken: "the-token"})
	srv := httptest.NewServer(e.d.adminHandler())
	defer srv.Close()
	r := &Remote{URL: srv.URL, Token: "the-token"}

	p := e.gpuPod("p", nodeA, limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "90000"), nil)
	if fr := e.filter(p, nodeA); fr.FailedNodes[nodeA] != "1/1 CardInsufficientMemory" {
		t.Fatalf("faithful: %v", fr.FailedNodes)
	}
	if err := r.SetFaults(Faults{IgnoreMemory: true}); err != nil {
		t.Fatal(err)
	}
	if fr := e.filter(p, nodeA); fr.NodeNames == nil || len(*fr.NodeNames) != 1 {
		t.Fatalf("with IgnoreMemory set remotely: %v, want the pod to fit", fr.FailedNodes)
	}
	s, err := r.State()
	if err != nil {
		t.Fatal(err)
	}
	if !s.Faults.IgnoreMemory || s.Config.NodeLockTimeout != e.d.config().NodeLockTimeout || s.CountedPods != e.d.countedPods() {
		t.Errorf("state %+v does not match the double (lock timeout %s, %d pods)", s, e.d.config().NodeLockTimeout, e.d.countedPods())
	}
	if err := r.SetFaults(Faults{}); err != nil {
		t.Fatal(err)
	}
	if fr := e.filter(p, nodeA); fr.FailedNodes[nodeA] != "1/1 CardInsufficientMemory" {
		t.Fatalf("after clearing remotely: %v", fr.FailedNodes)
	}

	bad := &Remote{URL: srv.URL, Token: "the-token"}
	if _, err := bad.do("PUT", "faults", []byte(`{"NoSuchFault":true}`)); err == nil || !strings.Contains(err.Error(), Banner) {
		t.Errorf("an unknown fault was not refused naming the double: %v", err)
	}
	notDouble := &Remote{Err: errTest}
	if err := notDouble.SetFaults(Faults{}); err != errTest {
		t.Errorf("a Remote of a real HAMi set faults: %v", err)
	}
}

// The admin routes answer only a request carrying the double's token: one
// without it, or with another, is refused and changes nothing, and a double
// started without a token refuses every admin request.
func TestAdminRoutesNeedTheToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{AdminToken: "the-token"})
	srv := httptest.NewServer(e.d.adminHandler())
	defer srv.Close()
	for _, c := range []struct{ name, token string }{{"no token", ""}, {"another token", "not-the-token"},
		{"the token as a prefix", "the-toke"}} {
		r := &Remote{URL: srv.URL, Token: c.token}
		if err := r.SetFaults(Faults{IgnoreMemory: true}); err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("%s: setting faults was not refused with 401: %v", c.name, err)
		}
		if _, err := r.State(); err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("%s: reading the state was not refused with 401: %v", c.name, err)
		}
	}
	if f := e.d.currentFaults(); f != (Faults{}) {
		t.Errorf("refused requests changed the faults to %+v", f)
	}

	off := newEnv(t, Config{})
	offSrv := httptest.NewServer(off.d.adminHandler())
	defer offSrv.Close()
	if err := (&Remote{URL: offSrv.URL}).SetFaults(Faults{IgnoreMemory: true}); err == nil ||
		!strings.Contains(err.Error(), AdminTokenFileEnv) {
		t.Errorf("a double without a token took faults from a request without one: %v", err)
	}
	if f := off.d.currentFaults(); f != (Faults{}) {
		t.Errorf("a double without a token changed its faults to %+v", f)
	}
}

// readAdminToken takes the file's content without surrounding white
// space, and refuses an unreadable or empty file naming the variable.
func TestReadAdminToken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "token")
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(good, []byte("abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path, want, err string
	}{
		{"unset", "", "", ""},
		{"file", good, "abc", ""},
		{"empty file", empty, "", "is empty"},
		{"missing file", filepath.Join(dir, "none"), "", AdminTokenFileEnv},
	} {
		got, err := readAdminToken(func(k string) string {
			if k == AdminTokenFileEnv {
				return c.path
			}
			return ""
		})
		if got != c.want || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: got %q, %v; want %q and an error containing %q", c.name, got, err, c.want, c.err)
		}
	}
}

var errTest = errString("not the double")

type errString string

func (e errString) Error() string { return string(e) }
