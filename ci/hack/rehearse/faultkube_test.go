package main

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// --fault: none by default, a known name into the options, an unknown one
// refused with the names.
func TestRehearseRunFaultFlag(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	helm := func(string) (string, error) { return "/usr/bin/helm", nil }
	if o, err := (runFlags{}).options(helm); err != nil || o.Fault != "" {
		t.Errorf("default: fault %q, %v; want none", o.Fault, err)
	}
	if o, err := (runFlags{fault: "etcd-leader"}).options(helm); err != nil || o.Fault != "etcd-leader" {
		t.Errorf("--fault etcd-leader: %q, %v", o.Fault, err)
	}
	_, err := (runFlags{fault: "kill-everything"}).options(func(string) (string, error) { return "", errors.New("no helm") })
	if err == nil || !strings.Contains(err.Error(), "tenant-apiserver, worker-restart, hami-scheduler, etcd-leader") {
		t.Errorf("unknown fault: %v, want the list of names", err)
	}
	run, _, err := newRehearseCommand(streams{out: io.Discard, errOut: io.Discard}).Find([]string{"run"})
	if err != nil {
		t.Fatal(err)
	}
	if fl := run.Flags().Lookup("fault"); fl == nil || fl.DefValue != "" {
		t.Errorf("rehearse run --fault: %+v, want a flag defaulting to none", fl)
	}
}

// rehearse run fault-kube is there for the rehearsal, hidden from help, and
// says what a call lacks before it reads any kubeconfig.
func TestRehearseFaultKubeCommand(t *testing.T) {
	cmd := newRehearseCommand(streams{out: io.Discard, errOut: io.Discard})
	fk, _, err := cmd.Find([]string{"run", faultKubeName})
	if err != nil || fk.Name() != faultKubeName || !fk.Hidden {
		t.Fatalf("rehearse run %s: %v, %+v", faultKubeName, err, fk)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", faultKubeName, "reboot", "--kubeconfig", "/nonexistent"}, `unknown verb "reboot"`},
		{[]string{"run", faultKubeName, "pods", "--selector", "a=b", "--kubeconfig", "/nonexistent"}, "needs --namespace"},
		{[]string{"run", faultKubeName, "node", "--name", "n"}, "needs --kubeconfig"},
		{[]string{"run", faultKubeName, "node", "--name", "n", "--kubeconfig", "/nonexistent/k.yaml"}, "kubeconfig /nonexistent/k.yaml"},
	} {
		c := newRehearseCommand(streams{out: io.Discard, errOut: io.Discard})
		c.SetArgs(tc.args)
		if err := c.Execute(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
}
