package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeInstallLine runs the README's Dagger CLI install line in bash
// with a stand-in curl and sh on PATH: when the download fails the line
// fails (a `curl … | sh` exits 0 there, and the next line then says
// `dagger: command not found`); when it succeeds the installer runs with
// the pinned version.
func TestReadmeInstallLine(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	readme := readRepoFile(t, "README.md")
	first := strings.Index(readme, "\ndagger call ")
	if first < 0 {
		t.Fatal("README.md has no dagger call")
	}
	before := readme[:first]
	line := before[strings.LastIndex(before, "\n")+1:]

	for _, tc := range []struct {
		name     string
		download string // the stand-in curl's script body
		wantOK   bool
	}{
		{"download fails", `echo "curl: (6) Could not resolve host" >&2; exit 6`, false},
		{"download succeeds", `out=; while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
if [ -n "$out" ]; then echo 'echo "installer ran: $DAGGER_VERSION"' > "$out"; else echo 'echo "installer ran: $DAGGER_VERSION"'; fi`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ran := filepath.Join(dir, "sh-ran")
			write := func(name, body string) {
				if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			write("curl", tc.download)
			write("sh", `touch "`+ran+`"; exec /bin/sh "$@"`)
			cmd := exec.Command(bash, "-c", line)
			cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "HOME="+dir, "TMPDIR="+dir)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatal(err)
			}
			if tc.wantOK {
				if err != nil || !strings.Contains(string(out), "installer ran: 0.21.8") {
					t.Errorf("install line with a good download: %v\n%s", err, out)
				}
				return
			}
			if err == nil {
				t.Errorf("install line exits 0 when the download fails:\n%s", out)
			}
			if _, err := os.Stat(ran); err == nil {
				t.Errorf("the installer ran although the download failed:\n%s", out)
			}
		})
	}
}
