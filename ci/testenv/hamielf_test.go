package testenv

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// dynamicBinary copies a dynamically linked program of this machine (true)
// into a temporary directory and returns the copy and its interpreter.
func dynamicBinary(t *testing.T) (string, string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("ELF loader check: Linux only")
	}
	src, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true program to copy")
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Skipf("%s is not ELF: %v", src, err)
	}
	interp, err := elfInterpreter(f)
	if err != nil || interp == "" {
		t.Skipf("%s is not dynamically linked (%v)", src, err)
	}
	bin := filepath.Join(t.TempDir(), "scheduler")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, interp
}

// patch rewrites bin's bytes in place.
func patch(t *testing.T, bin string, edit func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, edit(b), 0o755); err != nil {
		t.Fatal(err)
	}
}

// A HAMi binary whose dynamic loader this machine lacks (HAMi's glibc build
// on a musl system) fails the start at once, naming the loader, instead of
// exec's "no such file or directory" once every API server is up. The
// binary is this machine's own true with its PT_INTERP pointed elsewhere.
func TestHAMiBinaryWithoutItsLoaderFailsAtOnce(t *testing.T) {
	bin, interp := dynamicBinary(t)
	if err := checkRunnable(bin); err != nil {
		t.Fatalf("a binary this machine runs: %v", err)
	}
	missing := strings.Repeat("/x", len(interp)/2) + strings.Repeat("y", len(interp)%2)
	patch(t, bin, func(b []byte) []byte {
		return bytes.Replace(b, []byte(interp+"\x00"), []byte(missing+"\x00"), 1)
	})
	err := checkRunnable(bin)
	if err == nil || !strings.Contains(err.Error(), "needs its dynamic loader "+missing+", which this machine lacks") {
		t.Fatalf("checkRunnable = %v, want the missing loader named", err)
	}
	if out, runErr := exec.Command(bin).CombinedOutput(); runErr == nil {
		t.Fatalf("the patched binary ran (%s): the test does not break it", out)
	}
	// Through Start, before any process or directory exists.
	_, err = Start(context.Background(), soloLab(t, "no-loader"), Options{BinDir: t.TempDir(), HAMiBinary: bin})
	if err == nil || !strings.Contains(err.Error(), "HAMiBinary="+bin) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Start = %v, want the binary and its missing loader named", err)
	}
}

// A binary for another architecture is named as such.
func TestHAMiBinaryOfAnotherArchitecture(t *testing.T) {
	bin, _ := dynamicBinary(t)
	other := elf.EM_AARCH64
	if runtime.GOARCH == "arm64" {
		other = elf.EM_X86_64
	}
	patch(t, bin, func(b []byte) []byte {
		// e_machine: two bytes at offset 18 of the ELF header.
		binary.LittleEndian.PutUint16(b[18:20], uint16(other))
		return b
	})
	err := checkRunnable(bin)
	if err == nil || !strings.Contains(err.Error(), "is a "+strings.TrimPrefix(other.String(), "EM_")+" binary") {
		t.Errorf("checkRunnable = %v, want the architecture named", err)
	}
}

// A script is left to exec.
func TestHAMiScriptIsNotChecked(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "scheduler")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := checkRunnable(bin); err != nil {
		t.Errorf("checkRunnable(script) = %v", err)
	}
}
