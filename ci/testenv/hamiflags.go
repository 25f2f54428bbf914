package testenv

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/render"
)

// checkHAMiCommandLine runs the HAMi scheduler once with the command line
// the lab renders for it and --help, before any process of the environment
// starts, so a binary that does not know one of the lab's flags (an older
// HAMi, a lab setting the binary lacks) fails the start at once, naming the
// flag, instead of after etcd, the API servers and the controllers booted.
//
// HAMi v2.10.0's scheduler is a cobra command (cmd/scheduler/main.go@v2.10.0:
// main runs rootCmd.Execute, init only registers flags): cobra parses every
// flag before it looks at --help, so an unknown one fails there and a known
// set prints the usage and exits without running start(). Observed
// with cmd/scheduler built from v2.10.0: exit 0 at once with the
// usage; with an unknown flag added, exit 255 and "Error: unknown flag:
// --no-such-hami-flag". The double answers the same way (exit 0 with its
// usage; exit 1 naming the unknown flag). The values (ports, files) are the
// first tenant's before they are chosen: --help reads none of them.
func (e *Env) checkHAMiCommandLine(ctx context.Context) error {
	if len(e.lab.Tenants) == 0 {
		return nil // no HAMi runs
	}
	t := &tenant{env: e, spec: e.lab.Tenants[0], dir: filepath.Join(e.workDir, e.lab.Tenants[0].Name)}
	p := t.hamiPlace()
	args, err := hamiArgs(e, p)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, hamiHelpTimeout)
	defer cancel()
	argv := append(args, "--help")
	cmd := exec.CommandContext(ctx, e.hami.bin, argv...)
	cmd.Dir = e.workDir
	cmd.Env = append(os.Environ(), render.HAMiExtenderEnv(p)...)
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("testenv: %s did not answer --help within %s (%s %s)", e.hami.name, hamiHelpTimeout, e.hami.bin,
			strings.Join(argv, " "))
	}
	return fmt.Errorf("testenv: %s rejects the command line the lab renders for it, before anything started (%s %s: %w): %s; "+
		"run a HAMi scheduler of the lab's versions.hamiImage (%s), or change the lab setting that renders the flag",
		e.hami.name, e.hami.bin, strings.Join(argv, " "), err, firstLines(out, 3), e.lab.Versions.HAMiImage)
}

// hamiHelpTimeout bounds checkHAMiCommandLine: HAMi answers --help in
// milliseconds; a loaded machine may take a second to start its binary.
const hamiHelpTimeout = 30 * time.Second

// firstLines is the first n non-empty lines of out, joined by " | ".
func firstLines(out []byte, n int) string {
	var lines []string
	for _, l := range bytes.Split(out, []byte("\n")) {
		if s := strings.TrimSpace(string(l)); s != "" && len(lines) < n {
			lines = append(lines, s)
		}
	}
	return strings.Join(lines, " | ")
}
