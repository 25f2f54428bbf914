// Package preflight checks, before a build of hours starts, every
// prerequisite the rehearsal's image and chart builds need — the programs
// they run, root, a reachable Docker daemon, free disk — and names each
// missing one with how to get it, all at once. A build with a missing
// prerequisite does not start.
package preflight

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Tool is a program a build runs.
type Tool struct {
	// Name is looked up in $PATH.
	Name string
	// For says what the build runs it for; Get how to install it.
	For, Get string
}

// The programs of the image and chart builds (each is run by name in
// ci/hack/rehearsal/imagebuild or chartbuild; Debian's package names).
var (
	Git = Tool{"git", "reads the pinned upstream snapshots (imagebuild/gitsnap)", "apt-get install git"}
	Go  = Tool{"go", "builds every Go program through the module proxy (imagebuild/gobuild), and helm",
		"a Go toolchain at least as new as go.mod's (https://go.dev/dl; GOTOOLCHAIN fetches newer ones through the module proxy)"}
	Debootstrap = Tool{"debootstrap", "makes the Debian root file systems of the base and node images (imagebuild/rootfs)",
		"apt-get install debootstrap"}
	Tar    = Tool{"tar", "packs a root file system for docker import (imagebuild/rootfs)", "apt-get install tar"}
	Docker = Tool{"docker", "builds, tags and saves the images (ci/docker)", "apt-get install docker.io (or Docker's own packages)"}
	Gcc    = Tool{"gcc", "compiles the pause image's static pause.c (imagebuild/node.go)", "apt-get install gcc libc6-dev"}
	Strip  = Tool{"strip", "strips the pause binary as build/pause/Makefile does", "apt-get install binutils"}
	Bash   = Tool{"bash", "runs the go.mod edits of the snapshot trees", "apt-get install bash"}
	Cp     = Tool{"cp", "copies snapshot trees into module builds (imagebuild/gobuild)", "apt-get install coreutils"}
)

// Check is one prerequisite: a problem, or "" when it holds.
type Check func(ctx context.Context) string

// Tools checks that each tool is in $PATH (lookPath is exec.LookPath
// outside tests).
func Tools(lookPath func(string) (string, error), tools ...Tool) Check {
	return func(context.Context) string {
		var out []string
		for _, t := range tools {
			if _, err := lookPath(t.Name); err != nil {
				out = append(out, fmt.Sprintf("%s is not in $PATH (it %s): %s", t.Name, t.For, t.Get))
			}
		}
		return strings.Join(out, "\n")
	}
}

// Root checks that the process runs as root (uid is os.Geteuid()).
func Root(uid int, why string) Check {
	return func(context.Context) string {
		if uid != 0 {
			return fmt.Sprintf("not root (uid %d): %s; run it with sudo", uid, why)
		}
		return ""
	}
}

// Daemon checks that ping reaches the Docker daemon.
func Daemon(ping func(context.Context) error) Check {
	return func(ctx context.Context) string {
		if err := ping(ctx); err != nil {
			return fmt.Sprintf("the Docker daemon is not reachable (%v): start it, or point DOCKER_HOST at one (`rehearse daemon up` prints it)",
				err)
		}
		return ""
	}
}

// Free is the space of the file system holding path that an unprivileged
// process may use.
func Free(path string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// FreeDisk checks that the file system holding dir (or its nearest
// existing parent) has at least min bytes free, as free (Free on a real
// host) reports it.
func FreeDisk(free func(string) (uint64, error), dir string, min uint64, flag string) Check {
	return func(context.Context) string {
		p := dir
		for {
			n, err := free(p)
			if err == nil {
				if n < min {
					return fmt.Sprintf("%s has %.1f GiB free, the build needs at least %.0f GiB: free some, or choose another directory with %s", dir,
						float64(n)/(1<<30), float64(min)/(1<<30), flag)
				}
				return ""
			}
			if !errors.Is(err, os.ErrNotExist) || filepath.Dir(p) == p {
				return fmt.Sprintf("free space of %s: %v", dir, err)
			}
			p = filepath.Dir(p)
		}
	}
}

// Run runs every check and returns one error naming every problem, or nil.
func Run(ctx context.Context, what string, checks ...Check) error {
	var problems []string
	for _, c := range checks {
		if p := c(ctx); p != "" {
			problems = append(problems, strings.Split(p, "\n")...)
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%s cannot start, nothing was built — %d prerequisite(s) missing:\n  - %s", what, len(problems),
		strings.Join(problems, "\n  - "))
}
