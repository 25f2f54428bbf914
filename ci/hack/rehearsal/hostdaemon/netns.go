package hostdaemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// netnsDir is where `ip netns add NAME` bind-mounts the namespace
// (iproute2 ip-netns(8): "/var/run/netns/NAME").
const netnsDir = "/var/run/netns"

// NetnsPath is the file nsenter --net enters.
func NetnsPath(name string) string { return filepath.Join(netnsDir, name) }

func run(ctx context.Context, name string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// createNetns makes the namespace with its loopback up and checks it has no
// route at all: the daemon's bridges add only their own subnets, so nothing
// in it can reach an address outside it.
func createNetns(ctx context.Context, name string) error {
	if err := checkNetnsFree(name); err != nil {
		return err
	}
	if _, err := run(ctx, "ip", "netns", "add", name); err != nil {
		return fmt.Errorf("create the daemon's network namespace: %w", err)
	}
	err := func() error {
		if _, err := run(ctx, "ip", "-n", name, "link", "set", "lo", "up"); err != nil {
			return fmt.Errorf("bring up loopback in network namespace %s: %w", name, err)
		}
		return checkNoDefaultRoute(ctx, name)
	}()
	if err != nil {
		if derr := deleteNetns(context.WithoutCancel(ctx), name); derr != nil {
			err = errors.Join(err, derr)
		}
	}
	return err
}

// checkNetnsFree fails if the namespace exists: it is not this daemon's.
func checkNetnsFree(name string) error {
	if _, err := os.Lstat(NetnsPath(name)); err == nil {
		return fmt.Errorf("network namespace %s exists already and is not recorded as this daemon's (another daemon's, "+
			"or left by a rehearsal of another directory: `rehearse daemon down --dir THAT-DIR`); choose another --netns, "+
			"or `ip netns delete %s` if you know it is unused", name, name)
	}
	return nil
}

// checkNoDefaultRoute fails if the namespace has a default route in either
// family: that would be a way out of it.
func checkNoDefaultRoute(ctx context.Context, name string) error {
	for _, fam := range []string{"-4", "-6"} {
		out, err := run(ctx, "ip", "-n", name, fam, "route", "show", "default")
		if err != nil {
			return fmt.Errorf("list routes of network namespace %s: %w", name, err)
		}
		if strings.TrimSpace(out) != "" {
			return fmt.Errorf("network namespace %s has a default route (%s): the daemon must not reach outside it", name, strings.TrimSpace(out))
		}
	}
	return nil
}

// deleteNetns removes the namespace if it exists.
func deleteNetns(ctx context.Context, name string) error {
	if _, err := os.Stat(NetnsPath(name)); os.IsNotExist(err) {
		return nil
	}
	if _, err := run(ctx, "ip", "netns", "delete", name); err != nil {
		return fmt.Errorf("remove the daemon's network namespace: %w", err)
	}
	return nil
}
