package docker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// CLI runs the docker command line. The zero value uses "docker" from PATH
// and the caller's environment (DOCKER_HOST etc.).
type CLI struct {
	// Bin is the docker binary; default "docker".
	Bin string
	// Env is appended to the process environment (e.g. DOCKER_HOST=...).
	Env []string
}

// Error is a failed docker command: the arguments, the exit status and what
// the daemon said on stderr.
type Error struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("docker %s: %s", strings.Join(redact(e.Args), " "), msg)
}

func (e *Error) Unwrap() error { return e.Err }

// redact keeps long argument lists readable in errors (join commands carry
// tokens; exec scripts can be long).
func redact(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 120 {
			a = a[:117] + "..."
		}
		out[i] = a
	}
	return out
}

// IsNotFound reports whether err is docker saying an object does not exist.
func IsNotFound(err error) bool {
	var de *Error
	if !errors.As(err, &de) {
		return false
	}
	s := strings.ToLower(de.Stderr)
	return strings.Contains(s, "no such") || strings.Contains(s, "not found")
}

func (c CLI) bin() string {
	if c.Bin != "" {
		return c.Bin
	}
	return "docker"
}

// Run runs docker with args and returns stdout.
func (c CLI) Run(ctx context.Context, args ...string) ([]byte, error) {
	return c.RunIO(ctx, nil, nil, args...)
}

// RunIO runs docker with stdin from in (may be nil) and stdout to out; when
// out is nil stdout is returned.
func (c CLI) RunIO(ctx context.Context, in io.Reader, out io.Writer, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, c.bin(), args...)
	cmd.Env = append(os.Environ(), c.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin = in
	cmd.Stderr = &stderr
	if out != nil {
		cmd.Stdout = out
	} else {
		cmd.Stdout = &stdout
	}
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		return stdout.Bytes(), &Error{Args: args, Stderr: stderr.String(), Err: err}
	}
	return stdout.Bytes(), nil
}

// Ping checks that a daemon answers and returns its server version.
func (c CLI) Ping(ctx context.Context) (string, error) {
	out, err := c.Run(ctx, "version", "--format", "{{.Server.Version}}")
	if err != nil {
		return "", fmt.Errorf("no Docker daemon answers (check DOCKER_HOST or start Docker): %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}
