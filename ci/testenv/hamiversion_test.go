package testenv

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The version HAMi's scheduler reports, read from its recorded `version`
// output (testdata/README.md), names it in reports: a release build by its
// version and revision, a plain go build as unstamped.
func TestHAMiVersionFromRecordedOutput(t *testing.T) {
	const sum = "828d8378a0e0ffffffffffffffffffffffffffffffffffffffffffffffffffff"
	cases := []struct {
		file     string
		want     hamiVersion
		wantName string
	}{
		{"hami-v2.10.0-version.txt", hamiVersion{Version: "v2.10.0", Revision: "4707fb02c91c545bc7343ce26dba4c32919f9a3e"},
			"HAMi scheduler v2.10.0 (revision 4707fb02c91c) from /opt/scheduler (sha256:828d8378a0e0)"},
		{"hami-v2.10.0-unstamped-version.txt", hamiVersion{Version: "v0.0.0-master", Revision: "unknown"},
			"HAMi scheduler v0.0.0-master (unstamped build) from /opt/scheduler (sha256:828d8378a0e0)"},
	}
	for _, tc := range cases {
		got := parseHAMiVersion(readTestdata(t, tc.file))
		if got != tc.want {
			t.Errorf("%s: parseHAMiVersion = %+v, want %+v", tc.file, got, tc.want)
		}
		if name := binaryName(got, "/opt/scheduler", sum); name != tc.wantName {
			t.Errorf("%s: name %q, want %q", tc.file, name, tc.wantName)
		}
		if HAMiOfBackend(backendLine(hamiBackend{name: binaryName(got, "/opt/scheduler", sum)})) != tc.wantName {
			t.Errorf("%s: the backend line does not give the name back", tc.file)
		}
	}
}

// Another program's `version` is not taken for HAMi's: labctl's own (as
// the solo environment runs it under HAMi's name), an empty answer, and
// HAMi's template cut short.
func TestHAMiVersionOfOtherPrograms(t *testing.T) {
	real := string(readTestdata(t, "hami-v2.10.0-version.txt"))
	for name, out := range map[string]string{
		"labctl": "labctl development build\ncommit unknown (built outside a git checkout, or with -buildvcs=false)\nbuilt with go1.26.8\n" +
			"\npinned versions (a lab file's versions: overrides them)\n  HAMi image                         v2.10.0\n",
		"empty":       "",
		"no revision": strings.SplitN(real, "\n", 2)[0] + "\n",
	} {
		if got := parseHAMiVersion([]byte(out)); got != (hamiVersion{}) {
			t.Errorf("%s: parseHAMiVersion = %+v, want nothing", name, got)
		}
	}
	if got := binaryName(hamiVersion{}, "/opt/scheduler", strings.Repeat("a", 64)); got !=
		"HAMi scheduler from /opt/scheduler (sha256:aaaaaaaaaaaa)" {
		t.Errorf("name without a version = %q", got)
	}
}

// An image's binary is named by the version it reports; the tag stands in
// only when it reports none.
func TestHAMiImageNamedByTheBinarysVersion(t *testing.T) {
	const id = "sha256:8f0ca6210d91b1cf176d6d0af4c457049b7eea37b78397d902abbc830777c1cb"
	v := parseHAMiVersion(readTestdata(t, "hami-v2.10.0-unstamped-version.txt"))
	b := hamiImageBinary{Image: "projecthami/hami:v2.10.0", ID: id, Version: v}
	if got, want := b.name(), "HAMi scheduler v0.0.0-master (unstamped build) from projecthami/hami:v2.10.0 (image "+id+
		", no registry digest)"; got != want {
		t.Errorf("Name() = %q, want %q", got, want)
	}
	b.Version = hamiVersion{}
	if got := b.name(); !strings.HasPrefix(got, "HAMi scheduler v2.10.0 from projecthami/hami:v2.10.0 ") {
		t.Errorf("Name() without a reported version = %q, want the tag", got)
	}
}

// probeHAMiVersion runs the binary's version command and reads its stderr:
// a stand-in prints the recorded answer there, as HAMi's cobra command does.
func TestProbeHAMiVersionRunsTheBinary(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "answer"), readTestdata(t, "hami-v2.10.0-version.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "scheduler")
	script := "#!/bin/sh\n[ \"$1\" = version ] || exit 3\ncat " + filepath.Join(dir, "answer") + " >&2\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := probeHAMiVersion(context.Background(), bin); got.Version != "v2.10.0" {
		t.Errorf("probe = %+v, want v2.10.0", got)
	}
	if got := probeHAMiVersion(context.Background(), filepath.Join(dir, "missing")); got != (hamiVersion{}) {
		t.Errorf("probe of a missing binary = %+v, want nothing", got)
	}
}
