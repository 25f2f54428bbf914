package testenv

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"regexp"
	"strings"
	"testing"
)

// versionInName is what binaryName may put between "HAMi scheduler " and
// "from PATH": nothing (a binary that does not answer `version`, such as the
// double under HAMi's name), or the version it reports — "v2.10.0 (revision
// 4707fb02c91c) " for a release build (testdata/hami-v2.10.0-version.txt),
// "v0.0.0-master (unstamped build) " for a plain go build
// (testdata/hami-v2.10.0-unstamped-version.txt).
var versionInName = regexp.MustCompile(`^(v[0-9]+\.[0-9]+\.[0-9]+[^ ]* (\(unstamped build\) )?(\(revision [0-9a-f]{1,12}\) )?)?$`)

// checkBinaryNamed holds a HAMi backend's name to what the binary at bin is:
// its path and the first 12 hex digits of its own sha256, computed here, and
// the version it reports when it reports one. A real HAMi scheduler
// ($GPU_LAB_HAMI_BINARY) is named by its version, the double by its path
// alone; both must say which file ran.
func checkBinaryNamed(t *testing.T, name, bin string) {
	t.Helper()
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatalf("read the HAMi binary %s: %v", bin, err)
	}
	sum := sha256.Sum256(b)
	suffix := "from " + bin + " (sha256:" + hex.EncodeToString(sum[:])[:12] + ")"
	middle, ok := strings.CutPrefix(name, "HAMi scheduler ")
	if ok {
		middle, ok = strings.CutSuffix(middle, suffix)
	}
	if !ok || !versionInName.MatchString(middle) {
		t.Fatalf("HAMi() = %q, want \"HAMi scheduler [VERSION ]%s\"", name, suffix)
	}
	reported := probeHAMiVersion(context.Background(), bin).Version
	if reported == "" && middle != "" {
		t.Errorf("HAMi() = %q names a version, but %s reports none", name, bin)
	}
	if reported != "" && !strings.HasPrefix(middle, reported+" ") {
		t.Errorf("HAMi() = %q, want the version %s reports (%s) before its path", name, bin, reported)
	}
}

// The name check accepts the names binaryName gives the recorded version
// outputs of HAMi's scheduler (release and unstamped builds) and a binary
// that reports none, and refuses what is not a version.
func TestCheckBinaryNamed(t *testing.T) {
	t.Parallel()
	sum := strings.Repeat("ab", 32)
	versions := []hamiVersion{{}}
	for _, f := range []string{"testdata/hami-v2.10.0-version.txt", "testdata/hami-v2.10.0-unstamped-version.txt"} {
		out, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v := parseHAMiVersion(out)
		if v.Version == "" {
			t.Fatalf("%s: no version read", f)
		}
		versions = append(versions, v)
	}
	for _, v := range versions {
		name := binaryName(v, "/opt/scheduler", sum)
		middle, _ := strings.CutPrefix(name, "HAMi scheduler ")
		middle, _ = strings.CutSuffix(middle, "from /opt/scheduler (sha256:"+sum[:12]+")")
		if !versionInName.MatchString(middle) || (v.Version != "" && !strings.HasPrefix(middle, v.Version+" ")) {
			t.Errorf("%q: binaryName's name for %+v, but the check refuses it", name, v)
		}
	}
	for _, bad := range []string{"v2.10.0", "from ", "2.10.0 ", "v2.10.0 (revision XYZ) "} {
		if versionInName.MatchString(bad) {
			t.Errorf("%q taken for a version", bad)
		}
	}
}
