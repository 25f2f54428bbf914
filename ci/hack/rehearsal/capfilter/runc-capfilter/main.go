// Command runc-capfilter is the OCI runtime the rehearsal's Docker daemon
// (and the containerd of its kind nodes) calls instead of runc: it deletes
// from the container's capability sets every capability its own bounding
// set lacks (package capfilter), then executes the real runc with the same
// arguments. Build it static (CGO_ENABLED=0): it is also copied into node
// images, whose C library is not the host's.
//
// The real runc is $GPU_LAB_REAL_RUNC, or else the first "runc" on PATH (or
// in /usr/local/sbin, /usr/sbin, /usr/bin) that is not this program.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/capfilter"
)

// RealRuncEnv names the variable that overrides where the real runc is.
const RealRuncEnv = "GPU_LAB_REAL_RUNC"

func main() {
	args := os.Args[1:]
	runc, err := realRunc()
	if err == nil {
		err = filter(args)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "runc-capfilter:", err)
		os.Exit(1)
	}
	err = syscall.Exec(runc, append([]string{runc}, args...), os.Environ())
	fmt.Fprintf(os.Stderr, "runc-capfilter: exec %s: %v\n", runc, err)
	os.Exit(1)
}

// filter rewrites, in place, the file this runc invocation reads
// capabilities from, when it asks for one this process's bounding set lacks.
func filter(args []string) error {
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	kind, path := capfilter.Target(args, cwd)
	if kind == capfilter.None {
		return nil
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return fmt.Errorf("read own bounding set: %w", err)
	}
	bnd, err := capfilter.ParseBounding(status)
	if err != nil {
		return fmt.Errorf("/proc/self/status: %w", err)
	}
	drop := capfilter.Missing(bnd)
	if len(drop) == 0 {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read the capabilities runc will apply: %w", err)
	}
	var out []byte
	var removed []string
	if kind == capfilter.Spec {
		out, removed, err = capfilter.FilterSpec(data, drop)
	} else {
		out, removed, err = capfilter.FilterProcess(data, drop)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(removed) == 0 {
		return nil
	}
	return replace(path, out)
}

// replace writes data to path through a temporary file and a rename, so
// that runc never reads a half-written document.
func replace(path string, data []byte) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".capfilter-*")
	if err != nil {
		return fmt.Errorf("rewrite %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("rewrite %s: %w", path, err)
	}
	if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
		tmp.Close()
		return fmt.Errorf("rewrite %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("rewrite %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("rewrite %s: %w", path, err)
	}
	return nil
}

// realRunc finds the runc this wrapper stands in for.
func realRunc() (string, error) {
	if p := os.Getenv(RealRuncEnv); p != "" {
		return p, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find own path: %w", err)
	}
	selfInfo, err := os.Stat(self)
	if err != nil {
		return "", fmt.Errorf("find own path: %w", err)
	}
	candidates := filepath.SplitList(os.Getenv("PATH"))
	candidates = append(candidates, "/usr/local/sbin", "/usr/sbin", "/usr/bin")
	for _, dir := range candidates {
		p := filepath.Join(dir, "runc")
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() || os.SameFile(fi, selfInfo) {
			continue
		}
		if _, err := exec.LookPath(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no runc besides this wrapper on PATH, /usr/local/sbin, /usr/sbin or /usr/bin; set %s to the real runc", RealRuncEnv)
}
