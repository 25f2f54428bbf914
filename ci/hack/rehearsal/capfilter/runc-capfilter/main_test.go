package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/capfilter"
)

// ownMissing is what this process's bounding set lacks: the wrapper drops
// exactly that (nothing on a host with every capability).
func ownMissing(t *testing.T) []string {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("skipping: no /proc/self/status (%v)", err)
	}
	bnd, err := capfilter.ParseBounding(status)
	if err != nil {
		t.Fatal(err)
	}
	return capfilter.Missing(bnd)
}

// filter rewrites the recorded bundle config.json in place, as the shim's
// recorded `create` call would make it, and keeps the file's mode.
func TestFilterRewritesTheBundleInPlace(t *testing.T) {
	missing := ownMissing(t)
	recorded, err := os.ReadFile("../testdata/config-privileged.json")
	if err != nil {
		t.Fatal(err)
	}
	bundle := t.TempDir()
	cfg := filepath.Join(bundle, "config.json")
	if err := os.WriteFile(cfg, recorded, 0o600); err != nil {
		t.Fatal(err)
	}
	args := strings.Fields("--root /r --log /l/log.json --log-format json create --bundle " + bundle + " --pid-file /p/init.pid id")
	if err := filter(args); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := capfilter.FilterSpec(recorded, missing)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 && string(got) == string(recorded) {
		t.Fatalf("this host lacks %v, but config.json was not rewritten", missing)
	}
	if string(got) != string(want) {
		t.Fatalf("config.json after the wrapper differs from FilterSpec's output for this host's missing %v", missing)
	}
	if fi, err := os.Stat(cfg); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode after rewrite: %v %v", fi.Mode(), err)
	}
	left, _ := filepath.Glob(filepath.Join(bundle, ".capfilter-*"))
	if len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// A call that reads no capabilities, or names a missing file, is told
// apart: the former passes, the latter fails naming the file.
func TestFilterOtherCalls(t *testing.T) {
	if err := filter(strings.Fields("--root /r delete id")); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if len(ownMissing(t)) == 0 {
		t.Skip("skipping the missing-file case: this host lacks no capability, so the wrapper reads nothing")
	}
	err := filter([]string{"exec", "--process", "/nonexistent/process.json", "id"})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/process.json") {
		t.Fatalf("exec with a missing process file: %v", err)
	}
}

func TestRealRunc(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "runc")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(RealRuncEnv, "")
	t.Setenv("PATH", dir)
	if got, err := realRunc(); err != nil || got != fake {
		t.Fatalf("realRunc on PATH = %q, %v; want %q", got, err, fake)
	}
	t.Setenv(RealRuncEnv, "/opt/runc")
	if got, err := realRunc(); err != nil || !reflect.DeepEqual(got, "/opt/runc") {
		t.Fatalf("realRunc with %s = %q, %v", RealRuncEnv, got, err)
	}
}
