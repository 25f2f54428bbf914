package daggerrun

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/daggerbuild"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/preflight"
)

// EngineGC is what the engine's garbage collector did during the run, read
// from the engine's log.
type EngineGC struct {
	// Sweeps counts the collector's passes that reclaimed anything.
	Sweeps int
	// Reclaimed is the bytes they reclaimed together.
	Reclaimed int64
	// Lines are the log lines read, as they came.
	Lines []string
}

// gcCleaned is the line a collector pass ends with,
// bklog.G(ctx).Debugf("gc cleaned up %d bytes", …) at
// engine/server/gc.go:234 @v0.21.8.
var gcCleaned = regexp.MustCompile(`gc cleaned up (\d+) bytes`)

// ReadEngineGC reads the collector's passes from an engine log. The plan
// lines of dagql/cache_prune.go:136 @v0.21.8 ("dagql prune applied plan")
// are kept beside them: they name the policy that pruned.
func ReadEngineGC(log []byte) EngineGC {
	var gc EngineGC
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "dagql prune applied plan") {
			gc.Lines = append(gc.Lines, line)
			continue
		}
		m := gcCleaned.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		gc.Lines = append(gc.Lines, line)
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil || n == 0 {
			continue
		}
		gc.Sweeps++
		gc.Reclaimed += n
	}
	return gc
}

// engineCache is the size of the engine's state (its volume at
// /var/lib/dagger, daggerbuild.EngineRunArgs) and the free space of the
// disk the private daemon keeps it on, after a call.
func (r *daggerRun) engineCache(ctx context.Context) (used, free int64, err error) {
	out, err := r.docker().Run(ctx, "exec", daggerbuild.EngineContainer, "du", "-sx", "--block-size=1", "/var/lib/dagger")
	if err != nil {
		return 0, 0, fmt.Errorf("the engine's cache size: %w: %s", err, out)
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return 0, 0, fmt.Errorf("the engine's cache size: du printed nothing")
	}
	if used, err = strconv.ParseInt(f[0], 10, 64); err != nil {
		return 0, 0, fmt.Errorf("the engine's cache size %q: %w", f[0], err)
	}
	avail, err := preflight.Free(r.layout.Dir)
	if err != nil {
		return used, 0, fmt.Errorf("free disk at %s: %w", r.layout.Dir, err)
	}
	return used, int64(avail), nil
}

// keepEngineGC writes the collector's lines of the engine's log into the
// evidence (logs/engine-gc.log) and the sum into the report, before the
// engine goes.
func (r *daggerRun) keepEngineGC(ctx context.Context) error {
	// The engine logs to stderr, which docker.CLI keeps only on failure.
	cmd := exec.CommandContext(ctx, "docker", "logs", daggerbuild.EngineContainer)
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+r.layout.DockerHost())
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("the engine's log: %w: %s", err, out)
	}
	gc := ReadEngineGC(out)
	r.rep.EngineGC = &gc
	body := strings.Join(gc.Lines, "\n")
	if body != "" {
		body += "\n"
	}
	return os.WriteFile(filepath.Join(r.o.Evidence, "logs", "engine-gc.log"), []byte(body), 0o644)
}
