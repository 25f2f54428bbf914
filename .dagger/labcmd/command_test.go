package labcmd

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCommands(t *testing.T) {
	tests := []struct {
		name string
		got  []string
		want string
	}{
		{"up one stage", Up("kamaji"), "labctl up -f /lab/lab.yaml --state-dir /lab/state --only kamaji --keep " +
			"--pull-timeout 10m --images /lab/images --verbose"},
		{"test defaults", Test(Suite{}), "labctl test --state-dir /lab/state --report-dir /lab/reports"},
		{"test run", Test(Suite{Run: "TC-0[1-4]"}), "labctl test --state-dir /lab/state --report-dir /lab/reports --run TC-0[1-4]"},
		{"test parallel", Test(Suite{Parallel: 3}), "labctl test --state-dir /lab/state --report-dir /lab/reports --parallel 3"},
		{"test both", Test(Suite{Run: "TC-05", Parallel: 1}),
			"labctl test --state-dir /lab/state --report-dir /lab/reports --run TC-05 --parallel 1"},
		{"plan", Plan(""), "labctl plan -f /lab/lab.yaml"},
		{"plan with manifests", Plan(ManifestsDir), "labctl plan -f /lab/lab.yaml -o /lab/manifests"},
		{"validate", Validate(), "labctl validate -f /lab/lab.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(tt.got, " "); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// A --run pattern with spaces or shell characters must stay one argument:
// execs are argv, never a shell line.
func TestTestKeepsRunAsOneArgument(t *testing.T) {
	args := Test(Suite{Run: "TC-01|tenant isolation"})
	i := slices.Index(args, "--run")
	if i < 0 || args[i+1] != "TC-01|tenant isolation" {
		t.Fatalf("args %q: --run value split or missing", args)
	}
}

func TestScriptsUseTheLayout(t *testing.T) {
	wipe := strings.Join(Wipe(), " ")
	for _, want := range []string{"docker rm -fv", "docker network prune -f", "docker volume prune -af"} {
		if !strings.Contains(wipe, want) {
			t.Errorf("wipe %q lacks %q", wipe, want)
		}
	}
	if strings.Contains(wipe, "rmi") || strings.Contains(wipe, "image prune") || strings.Contains(wipe, "system prune") {
		t.Errorf("wipe %q touches images, which the cache volume exists to keep", wipe)
	}
	shell := strings.Join(ShellScript(), " ")
	for _, want := range []string{StateDir + "/kubeconfigs/*.yaml", "export KUBECONFIG=", "exec sh -i"} {
		if !strings.Contains(shell, want) {
			t.Errorf("shell script lacks %q", want)
		}
	}
}

// The DinD daemon's image cache is empty on every hosted CI job: one pull
// must be allowed more than a cold kindest/node pull is expected to take.
func TestPullTimeoutCoversAColdPull(t *testing.T) {
	d, err := time.ParseDuration(PullTimeout)
	if err != nil {
		t.Fatalf("PullTimeout %q: not a Go duration: %v", PullTimeout, err)
	}
	if d <= ColdImagePullEstimate {
		t.Fatalf("PullTimeout %s: want more than a cold kindest/node pull (ColdImagePullEstimate %s)", d, ColdImagePullEstimate)
	}
}

func TestDockerHostMatchesAliasAndPort(t *testing.T) {
	if want := "tcp://" + DockerAlias + ":2375"; DockerHost != want || DockerPort != 2375 {
		t.Fatalf("DockerHost %q, DockerPort %d: want %q and the port dockerd listens on", DockerHost, DockerPort, want)
	}
}
