// Package nodeadapt is what a kind node image needs to run pods on this
// machine, for the image builder (ci/hack/rehearsal/imagebuild): two settings in
// the node's containerd config.toml and one file.
//
// Found by running a Debian bookworm node (systemd, containerd
// 1.6.20~ds1-1+deb12u3, runc 1.1.5+ds1-1+deb12u1) the way kind v0.33.0 runs
// one, on the rehearsal's private daemon (the commands and messages are
// in ci/hack/rehearsal's Adaptations):
//
//   - Every pod sandbox, privileged or not, failed "runc create failed:
//     unable to start container process: can't get final child's PID from
//     pipe: EOF", and runc's log said "nsexec: failed to update
//     /proc/self/oom_score_adj: Permission denied": containerd's CRI gives a
//     sandbox oom_score_adj -998 (containerd v1.6.20
//     pkg/cri/server/helpers_linux.go:45), and lowering it needs
//     CAP_SYS_RESOURCE, which nothing in this sandbox has. containerd's CRI
//     option restrict_oom_score_adj (pkg/cri/config/config.go:263-266) limits
//     it to containerd's own value; kind sets the same for rootless nodes
//     (kind v0.33.0 images/base/files/usr/local/bin/entrypoint:133-137). With
//     it, sandboxes and containers (privileged or not) start.
//   - Capabilities are not the sandbox's problem: containerd 1.6.20 gives a
//     privileged container the capabilities containerd itself has
//     (oci/spec_opts_linux.go:126-131 WithAllCurrentCapabilities, used by
//     WithPrivileged), which here lack CAP_SYS_RESOURCE already. A container
//     that adds CAP_SYS_RESOURCE explicitly still fails "unable to apply caps:
//     operation not permitted"; the runtime wrapper as the runc runtime's
//     BinaryName makes it run without it.
//
// containerd 2.3.4 has the same sandbox value, option and privileged
// capabilities (internal/cri/server/podsandbox/helpers_linux.go:48,
// internal/cri/config/config.go:374, pkg/oci/spec_opts.go:1432-1442); a node
// with it has not been tried here.
//
// TestNodeRunsPodsWithAdaptedContainerd (GPU_LAB_REHEARSAL=1 and a rootfs)
// repeats the whole finding through containerd's CRI.
//
// The settings go into the node's own config.toml: containerd replaces a
// whole plugin section with an imported file's (containerd v1.6.20
// services/server/config/config.go:327-337), so a drop-in cannot add them.
package nodeadapt

import (
	"context"
	"fmt"

	toml "github.com/pelletier/go-toml"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
)

// WrapperPath is where the node image holds the runtime wrapper.
const WrapperPath = "/usr/local/sbin/runc-capfilter"

// criPlugin is the plugin whose section holds the settings, by config
// version: "io.containerd.grpc.v1.cri" in version 2 (containerd 1.x;
// containerd 2.x migrates it: v2.3.4 plugins/cri/runtime/plugin.go:204-219),
// "io.containerd.cri.v1.runtime" from version 3 on (containerd v2.3.4
// plugins/types.go:77 CRIServicePlugin + ".runtime", version/version.go:41
// ConfigVersion = 4). Both hold restrict_oom_score_adj (containerd v1.6.20
// pkg/cri/config/config.go:266; v2.3.4 internal/cri/config/config.go:374)
// and containerd.runtimes.runc.{runtime_type,options} (v2.3.4
// internal/cri/config/config.go:87,100,142,356).
var criPlugin = map[int64]string{2: "io.containerd.grpc.v1.cri", 3: "io.containerd.cri.v1.runtime", 4: "io.containerd.cri.v1.runtime"}

func restrictOOMPath(plugin string) []string {
	return []string{"plugins", plugin, "restrict_oom_score_adj"}
}

func binaryNamePath(plugin string) []string {
	return []string{"plugins", plugin, "containerd", "runtimes", "runc", "options", "BinaryName"}
}

func runtimeTypePath(plugin string) []string {
	return []string{"plugins", plugin, "containerd", "runtimes", "runc", "runtime_type"}
}

// runcRuntimeType is the runc runtime's type in containerd's own defaults
// (containerd v1.6.20 pkg/cri/config/config_unix.go:77-78, v2.3.4
// internal/cri/config/config_unix.go:93-94). A config that names the runc
// runtime replaces the default entry whole, so one that sets only its
// options must set the type too — without it every sandbox failed
// "container.Runtime.Name must be set: invalid argument" (tried on
// Debian's config.toml, which has no runtimes section).
const runcRuntimeType = "io.containerd.runc.v2"

// PatchContainerdConfig returns a node's containerd config.toml (version 2–4)
// with restrict_oom_score_adj = true and the runc runtime's BinaryName set
// to WrapperPath (and its runtime_type, when the config has none); every
// other setting is kept (the text is re-encoded).
func PatchContainerdConfig(cfg []byte) ([]byte, error) {
	tree, err := toml.LoadBytes(cfg)
	if err != nil {
		return nil, fmt.Errorf("the node's containerd config.toml does not parse: %w", err)
	}
	v, _ := tree.Get("version").(int64)
	plugin, ok := criPlugin[v]
	if !ok {
		return nil, fmt.Errorf("the node's containerd config.toml has version %v; the rehearsal knows where its settings go in versions 2 to 4",
			tree.Get("version"))
	}
	tree.SetPath(restrictOOMPath(plugin), true)
	tree.SetPath(binaryNamePath(plugin), WrapperPath)
	if tree.GetPath(runtimeTypePath(plugin)) == nil {
		tree.SetPath(runtimeTypePath(plugin), runcRuntimeType)
	}
	out, err := tree.ToTomlString()
	if err != nil {
		return nil, fmt.Errorf("encode the node's containerd config.toml: %w", err)
	}
	return []byte(out), nil
}

// BuildWrapper builds the static runtime wrapper to out; the image builder
// copies it to WrapperPath.
func BuildWrapper(ctx context.Context, out string) error { return hostdaemon.BuildWrapper(ctx, out) }
