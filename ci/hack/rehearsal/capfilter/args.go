package capfilter

import (
	"path/filepath"
	"strings"
)

// Kind says which document a runc invocation reads capabilities from.
type Kind int

const (
	// None: the invocation reads no capability set (state, kill, delete, …,
	// or exec with the process given on the command line).
	None Kind = iota
	// Spec: create or run read the bundle's config.json.
	Spec
	// process: exec --process FILE reads FILE.
	process
)

// globalWithValue are runc's global options that take a value (runc 1.1.5
// `runc --help`, GLOBAL OPTIONS): their value must not be taken for the
// command. The boolean ones (--debug, --systemd-cgroup, --help, --version)
// take none.
var globalWithValue = map[string]bool{"log": true, "log-format": true, "root": true, "criu": true, "rootless": true}

// Target returns which file the runc invocation args (without argv[0])
// will read capabilities from, relative paths resolved against cwd:
// `create`/`run` read BUNDLE/config.json (--bundle/-b, default the current
// directory: runc 1.1.5 `runc create --help`), `exec` reads the file of
// --process/-p (`runc exec --help`). runc parses flags with urfave/cli, which
// accepts one or two dashes and "flag value" or "flag=value".
func Target(args []string, cwd string) (Kind, string) {
	i := 0
	for i < len(args) {
		name, hasValue, ok := flagName(args[i])
		if !ok {
			break
		}
		i++
		if globalWithValue[name] && !hasValue {
			i++
		}
	}
	if i >= len(args) {
		return None, ""
	}
	cmd, rest := args[i], args[i+1:]
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(cwd, p)
	}
	switch cmd {
	case "create", "run":
		bundle, ok := flagValue(rest, createWithValue, "bundle", "b")
		if !ok {
			bundle = "."
		}
		return Spec, abs(filepath.Join(bundle, "config.json"))
	case "exec":
		if p, ok := flagValue(rest, execWithValue, "process", "p"); ok {
			return process, abs(p)
		}
	}
	return None, ""
}

// flagName returns the name of a flag argument ("--root" → "root"), whether
// it carries its value ("--root=/x"), and false for a non-flag argument.
func flagName(arg string) (string, bool, bool) {
	if !strings.HasPrefix(arg, "-") || arg == "-" || arg == "--" {
		return "", false, false
	}
	name := strings.TrimLeft(arg, "-")
	if n, _, found := strings.Cut(name, "="); found {
		return n, true, true
	}
	return name, false, true
}

// createWithValue and execWithValue are the options of `runc create`/`runc
// run` and `runc exec` that take a value (runc 1.1.5 `runc create --help`,
// `runc run --help`, `runc exec --help`): flagValue skips their values, so
// that it stops at the container ID, after which `exec` takes the command
// to run and its arguments, whose own flags are not runc's.
var (
	createWithValue = map[string]bool{"bundle": true, "b": true, "console-socket": true, "pid-file": true, "preserve-fds": true}
	execWithValue   = map[string]bool{
		"console-socket": true, "cwd": true, "env": true, "e": true, "user": true, "u": true,
		"additional-gids": true, "g": true, "process": true, "p": true, "pid-file": true,
		"process-label": true, "apparmor": true, "cap": true, "c": true, "preserve-fds": true, "cgroup": true,
	}
)

// flagValue finds the value of a command's flag given by its long or short
// name among the options before the first positional argument (or "--").
func flagValue(args []string, withValue map[string]bool, long, short string) (string, bool) {
	for i := 0; i < len(args); i++ {
		name, hasValue, ok := flagName(args[i])
		if !ok {
			return "", false
		}
		var value string
		switch {
		case hasValue:
			_, value, _ = strings.Cut(args[i], "=")
		case withValue[name] && i+1 < len(args):
			i++
			value = args[i]
		}
		if name == long || name == short {
			return value, true
		}
	}
	return "", false
}
