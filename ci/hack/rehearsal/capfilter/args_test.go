package capfilter

import (
	"strings"
	"testing"
)

// Every runtime call the shim made for a privileged run, a default run and
// a docker exec (recorded) is classified by its command.
func TestTargetOfRecordedCalls(t *testing.T) {
	var sawSpec, sawProcess int
	for _, line := range strings.Split(strings.TrimSpace(string(load(t, "runc-args.txt"))), "\n") {
		args := strings.Fields(line)
		kind, path := Target(args, "/cwd")
		cmd := commandOf(args)
		switch cmd {
		case "create":
			sawSpec++
			bundle := args[indexOf(args, "--bundle")+1]
			if kind != Spec || path != bundle+"/config.json" {
				t.Errorf("%s: Target = %v %q, want Spec %s/config.json", cmd, kind, path, bundle)
			}
		case "exec":
			sawProcess++
			if kind != process || path != args[indexOf(args, "--process")+1] {
				t.Errorf("exec: Target = %v %q, want the --process file", kind, path)
			}
		default:
			if kind != None {
				t.Errorf("%s: Target = %v %q, want None", cmd, kind, path)
			}
		}
	}
	if sawSpec != 2 || sawProcess != 1 {
		t.Fatalf("recorded calls: %d create, %d exec; want 2 and 1", sawSpec, sawProcess)
	}
}

func commandOf(args []string) string {
	for i := 0; i < len(args); i++ {
		if strings.HasPrefix(args[i], "-") {
			if args[i] != "--version" {
				i++
			}
			continue
		}
		return args[i]
	}
	return "--version"
}

func indexOf(args []string, s string) int {
	for i, a := range args {
		if a == s {
			return i
		}
	}
	return -2
}

func TestTargetForms(t *testing.T) {
	for _, tc := range []struct {
		args string
		kind Kind
		path string
	}{
		{"run -b=/b id", Spec, "/b/config.json"},
		{"--root=/r run --bundle /b id", Spec, "/b/config.json"},
		{"--systemd-cgroup --rootless false create -bundle rel id", Spec, "/cwd/rel/config.json"},
		{"create id", Spec, "/cwd/config.json"},
		{"create --pid-file /p -b /b id", Spec, "/b/config.json"},
		{"exec -p=/p.json id", process, "/p.json"},
		{"exec --cwd / -p /p.json id", process, "/p.json"},
		// The command's own -p after the container ID is not runc's.
		{"exec --cwd /x id sh -p /etc", None, ""},
		{"exec id sh", None, ""},
		{"--log /l delete id", None, ""},
		{"--debug", None, ""},
		{"", None, ""},
	} {
		t.Run(tc.args, func(t *testing.T) {
			kind, path := Target(strings.Fields(tc.args), "/cwd")
			if kind != tc.kind || path != tc.path {
				t.Fatalf("Target(%s) = %v %q, want %v %q", tc.args, kind, path, tc.kind, tc.path)
			}
		})
	}
}
