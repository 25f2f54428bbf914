package testenv

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
	"strings"
	"time"
)

// hamiVersionTimeout bounds `scheduler version`, which only prints.
const hamiVersionTimeout = 10 * time.Second

// hamiVersion is what a HAMi scheduler binary says it is.
type hamiVersion struct {
	// Version and Revision are stamped by HAMi's Makefile (-X
	// …/pkg/version.version=$(VERSION), …revision=$(REVISION)); a plain
	// `go build` leaves v0.0.0-master and "unknown".
	Version, Revision string
}

// probeHAMiVersion runs `bin version` (the cobra command HAMi v2.10.0's
// scheduler adds in cmd/scheduler/main.go, printing pkg/version/version.go's
// template to stderr) and reads it. A binary that does not answer that way
// (not HAMi's scheduler, or one that cannot run) gives the zero value: the
// start then says why it cannot run it.
func probeHAMiVersion(ctx context.Context, bin string) hamiVersion {
	ctx, cancel := context.WithTimeout(ctx, hamiVersionTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "version").CombinedOutput()
	if err != nil {
		return hamiVersion{}
	}
	return parseHAMiVersion(out)
}

// parseHAMiVersion reads pkg/version/version.go@v2.10.0's versionInfoTmpl:
// "version:", "revision:", "build date:", "go version:", "compiler:",
// "platform:", one a line, value after spaces. Both version and revision
// must be there, so another program's "version" output is not taken for
// HAMi's.
func parseHAMiVersion(out []byte) hamiVersion {
	var v hamiVersion
	seen := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch key {
		case "version":
			v.Version = value
			seen++
		case "revision":
			v.Revision = value
			seen++
		}
	}
	if seen != 2 || v.Version == "" || strings.ContainsAny(v.Version, " \t;") {
		return hamiVersion{}
	}
	return v
}

// label is how a name shows the version: "v2.10.0", or "v0.0.0-master
// (unstamped build)" for a binary built without HAMi's Makefile, empty when
// unknown.
func (v hamiVersion) label() string {
	// pkg/version/version.go@v2.10.0: version = "v0.0.0-master" unless the
	// Makefile's GO_BUILD_LDFLAGS set it.
	if v.Version == "v0.0.0-master" {
		return v.Version + " (unstamped build)"
	}
	return v.Version
}
