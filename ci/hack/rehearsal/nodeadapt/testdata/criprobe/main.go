// Command criprobe asks a containerd's CRI, as kubelet does, for a pod
// sandbox (host network) and one container in it, then execs the
// container's `/probe caps` and prints its output. It is built (its own
// module, so that the root module does not depend on the CRI API) and run
// inside a node by the nodeadapt integration test.
//
//	criprobe [plain|privileged|addcap]
//
// plain: an unprivileged pod; privileged: the container and sandbox are
// privileged; addcap: the container adds SYS_RESOURCE (CRI names have no
// CAP_ prefix: containerd v1.6.20 pkg/cri/opts/spec_linux.go:355-356).
// The container asks for oom_score_adj -997, what kubelet gives a
// Guaranteed pod (k8s.io/kubernetes v1.36.4 pkg/kubelet/qos/policy.go:33).
// Exit status 1 and the CRI error on the first failing call.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"
)

const sandboxImage = "registry.k8s.io/pause:3.6"

func main() {
	mode := "plain"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	if err := run(mode); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
}

func run(mode string) error {
	priv := mode == "privileged"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := grpc.NewClient("unix:///run/containerd/containerd.sock", grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	c := cri.NewRuntimeServiceClient(conn)
	name := fmt.Sprintf("probe-%s-%d", mode, time.Now().UnixNano())
	hostNet := &cri.NamespaceOption{Network: cri.NamespaceMode_NODE}
	sc := &cri.PodSandboxConfig{
		Metadata: &cri.PodSandboxMetadata{Name: name, Uid: name, Namespace: "default"},
		Linux: &cri.LinuxPodSandboxConfig{SecurityContext: &cri.LinuxSandboxSecurityContext{
			NamespaceOptions: hostNet, Privileged: priv,
		}},
	}
	sb, err := c.RunPodSandbox(ctx, &cri.RunPodSandboxRequest{Config: sc})
	if err != nil {
		return fmt.Errorf("RunPodSandbox: %w", err)
	}
	defer func() {
		_, _ = c.StopPodSandbox(context.Background(), &cri.StopPodSandboxRequest{PodSandboxId: sb.PodSandboxId})
		_, _ = c.RemovePodSandbox(context.Background(), &cri.RemovePodSandboxRequest{PodSandboxId: sb.PodSandboxId})
	}()
	secCtx := &cri.LinuxContainerSecurityContext{Privileged: priv, NamespaceOptions: hostNet}
	if mode == "addcap" {
		secCtx.Capabilities = &cri.Capability{AddCapabilities: []string{"SYS_RESOURCE"}}
	}
	cc := &cri.ContainerConfig{
		Metadata: &cri.ContainerMetadata{Name: "probe"},
		Image:    &cri.ImageSpec{Image: sandboxImage},
		Command:  []string{"/probe", "sleep"},
		Linux: &cri.LinuxContainerConfig{
			Resources:       &cri.LinuxContainerResources{OomScoreAdj: -997},
			SecurityContext: secCtx,
		},
	}
	ct, err := c.CreateContainer(ctx, &cri.CreateContainerRequest{PodSandboxId: sb.PodSandboxId, Config: cc, SandboxConfig: sc})
	if err != nil {
		return fmt.Errorf("CreateContainer: %w", err)
	}
	defer func() {
		_, _ = c.StopContainer(context.Background(), &cri.StopContainerRequest{ContainerId: ct.ContainerId, Timeout: 5})
		_, _ = c.RemoveContainer(context.Background(), &cri.RemoveContainerRequest{ContainerId: ct.ContainerId})
	}()
	if _, err := c.StartContainer(ctx, &cri.StartContainerRequest{ContainerId: ct.ContainerId}); err != nil {
		return fmt.Errorf("StartContainer: %w", err)
	}
	ex, err := c.ExecSync(ctx, &cri.ExecSyncRequest{ContainerId: ct.ContainerId, Cmd: []string{"/probe", "caps"}, Timeout: 30})
	if err != nil {
		return fmt.Errorf("ExecSync: %w", err)
	}
	fmt.Printf("%s%s", ex.Stdout, ex.Stderr)
	return nil
}
