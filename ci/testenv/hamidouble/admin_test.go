package hamidouble

import (
	"net/http/httptest"
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
	e := newEnv(t, Config{NodeLockTimeout: 7 * time.Minute})
	srv := httptest.NewServer(e.d.AdminHandler())
	defer srv.Close()
	r := &Remote{URL: srv.URL}

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
	if !s.Faults.IgnoreMemory || s.Config.NodeLockTimeout != e.d.Config().NodeLockTimeout || s.CountedPods != e.d.CountedPods() {
		t.Errorf("state %+v does not match the double (lock timeout %s, %d pods)", s, e.d.Config().NodeLockTimeout, e.d.CountedPods())
	}
	if err := r.SetFaults(Faults{}); err != nil {
		t.Fatal(err)
	}
	if fr := e.filter(p, nodeA); fr.FailedNodes[nodeA] != "1/1 CardInsufficientMemory" {
		t.Fatalf("after clearing remotely: %v", fr.FailedNodes)
	}

	bad := &Remote{URL: srv.URL}
	if _, err := bad.do("PUT", "faults", []byte(`{"NoSuchFault":true}`)); err == nil || !strings.Contains(err.Error(), Banner) {
		t.Errorf("an unknown fault was not refused naming the double: %v", err)
	}
	notDouble := &Remote{Err: errTest}
	if err := notDouble.SetFaults(Faults{}); err != errTest {
		t.Errorf("a Remote of a real HAMi set faults: %v", err)
	}
}

var errTest = errString("not the double")

type errString string

func (e errString) Error() string { return string(e) }
