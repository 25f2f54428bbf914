package rehearsal

import (
	"fmt"
	"io"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/daggerbuild"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/nodeadapt"
)

// Adaptation is one way the rehearsal differs from a user's run because of
// this machine, with why and what showed it.
type Adaptation struct {
	Name string
	// What is changed, and where the code that applies it is.
	What string
	// Reason is the machine's property that needs it.
	Reason string
	// Evidence is what was run and what it printed, with the date.
	Evidence string
}

// Adaptations lists every host adaptation of the rehearsal.
func Adaptations() []Adaptation {
	return []Adaptation{
		{
			Name: "private Docker daemon",
			What: fmt.Sprintf("the lab runs on a dockerd and containerd of their own (socket, data root, exec root, "+
				"pid files, cgroup parent /%s) started by `rehearse daemon up` (ci/hack/rehearsal/hostdaemon), "+
				"not on the machine's Docker", hostdaemon.DefaultNetns),
			Reason: "the machine's Docker cannot run privileged containers, and the rehearsal must neither reconfigure it nor leave anything in it",
			Evidence: "issue 33 fact 1 (2026-12-02): the machine's Docker refuses --privileged with `unable to apply caps`; " +
				"hostdaemon's TestPrivateDaemonRunsPrivilegedContainers (GPU_LAB_REHEARSAL=1) starts, " +
				"uses and removes the private daemon and finds no process, mount, namespace or cgroup left",
		},
		{
			Name: "capability wrapper (private daemon)",
			What: fmt.Sprintf("the private daemon's default OCI runtime is runc-capfilter (daemon.json default-runtime "+
				"%q), which deletes from a container's capability sets those the host's bounding set lacks, then runs runc",
				hostdaemon.RuntimeName),
			Reason: "the sandbox's bounding set lacks CAP_SYS_RESOURCE (/proc/self/status CapBnd 000001fffeffffff), " +
				"and Docker 20.10.24 asks for every capability up to CAP_AUDIT_READ for --privileged (moby v20.10.24 " +
				"oci/caps/utils.go:14-30)",
			Evidence: "2026-12-02, dockerd 20.10.24, runc 1.1.5: with runc as default runtime `docker run --privileged` " +
				"fails `OCI runtime create failed: runc create failed: unable to start container process: " +
				"unable to apply caps: operation not permitted`; " +
				"with the wrapper it runs with CapEff 0000003ffeffffff (all of Docker's set but CAP_SYS_RESOURCE), " +
				"and `docker exec` too (TestPrivateDaemonRunsPrivilegedContainers)",
		},
		{
			Name: "network namespace",
			What: "the private daemon runs in a network namespace the rehearsal creates (ip netns add; loopback up; " +
				"no route) and enters with nsenter --net",
			Reason: "nothing the lab runs may reach an address outside loopback and the rehearsal's namespaces; " +
				"`ip netns exec` would also remount /sys and hide the cgroup mounts",
			Evidence: "issue 33 fact 4: under `ip netns exec` dockerd stops with `Devices cgroup isn't mounted`; " +
				"TestPrivateDaemonRunsPrivilegedContainers: a kind-style dual-stack network's gateway " +
				"fc00:f853:ccd:e793::1 exists in the namespace only, and the namespace has no default route",
		},
		{
			Name: "kubelet on cgroup v1",
			What: "failCgroupV1: false in every KubeletConfiguration of the lab (the management cluster's kind " +
				"kubeadmConfigPatches, the tenants' workers' join) — made by the product itself, not by the rehearsal: " +
				"labctl's preflight reads the daemon's cgroup version and ci/render renders the setting on cgroup v1, " +
				"and says so (main after 19f6585)",
			Reason: "/sys/fs/cgroup is cgroup v1 here, and kubelet v1.36.4 defaults failCgroupV1 to true " +
				"(k8s.io/kubernetes v1.36.4 pkg/kubelet/apis/config/v1beta1/defaults.go:293-295)",
			Evidence: "issue 33 fact 2 (2026-12-02): kubelet refuses to start on cgroup v1 unless failCgroupV1 is false; with it, kubelet runs",
		},
		{
			Name: "an empty /lib/modules on the host",
			What: "`rehearse run` creates the directory /lib/modules, empty, before the lab starts and removes " +
				"it afterwards if it made it and it is still empty (ci/hack/rehearsal/run LibModules)",
			Reason: "kind bind-mounts it read-only into every node (sigs.k8s.io/kind v0.33.0 " +
				"pkg/cluster/internal/providers/docker/provision.go:239, `--volume /lib/modules:/lib/modules:ro`) " +
				"and the lab's workers likewise (ci/docker KindNodeSpec); this machine has none, and Docker would create " +
				"the missing source of a bind mount on the host itself — a silent change the rehearsal would not remove. " +
				"The nodes see no module files: what the kernel has loaded or built in is all they get",
			Evidence: "2026-12-02: `ls /lib/modules` on this machine: No such file or directory",
		},
		{
			Name: "inotify limits",
			What: "`rehearse run` raises fs.inotify.max_user_watches to 524288 and fs.inotify.max_user_instances " +
				"to 512 (kind's known-issues values, which labctl's preflight requires) for its run, and restores " +
				"the previous values afterwards unless they were changed meanwhile (ci/hack/rehearsal/run InotifyLimits)",
			Reason: "kind's nodes and pods fail with \"too many open files\" below them (kubernetes-sigs/kind " +
				"site/content/docs/user/known-issues.md:214-225); a user is told by preflight to run the same sysctl",
			Evidence: "2026-12-02: /proc/sys/fs/inotify/max_user_watches 192530, max_user_instances 128 on this machine; both writable by root",
		},
		{
			Name: "management node on the tenants' Kubernetes version",
			What: "the rehearsal's default lab (ci/hack/rehearsal/lab.yaml) " +
				"sets versions.kindNodeImage to kindest/node:v1.36.4, the tenants' version, " +
				"instead of kind v0.33.0's default v1.37.0; everything else is the seed lab",
			Reason: "every image is built here from source, and each Kubernetes version is one long build " +
				"(kindest/node needs its release binaries): one version instead of two halves the cold build",
			Evidence: "2026-12-02, 2 busy cores: the Kubernetes v1.37.0 binaries took 87 min to build here " +
				"(ci/hack/rehearsal/imagebuild/k8srelease); v1.36.4's 12m33s (2026-12-05) and 17m39s (2026-12-06) " +
				"beside one other build; a user's lab may set the same field (ci/lab/versions.go KindNodeImage)",
		},
		{
			Name: "node containerd: restrict_oom_score_adj",
			What: "the node image's containerd config.toml sets restrict_oom_score_adj = true in the CRI plugin (nodeadapt.PatchContainerdConfig)",
			Reason: "containerd's CRI asks runc for oom_score_adj -998 for every pod sandbox (containerd v1.6.20 " +
				"pkg/cri/server/helpers_linux.go:45), and lowering it needs CAP_SYS_RESOURCE, which no process here has",
			Evidence: "2026-12-02, Debian bookworm node (containerd 1.6.20, runc 1.1.5) run as kind v0.33.0 runs one, " +
				"on the private daemon: through CRI every sandbox, privileged or not, failed " +
				"`runc create failed: unable to start container process: can't get final child's PID from pipe: EOF`; " +
				"runc run with oomScoreAdj -998 in the node printed " +
				"`nsexec[292]: failed to update /proc/self/oom_score_adj: Permission denied` and the same error; " +
				"with the setting, sandboxes and containers (privileged or not, oom_score_adj -997 asked) " +
				"start (nodeadapt's TestNodeRunsPodsWithAdaptedContainerd repeats it)",
		},
		{
			Name: "node containerd: capability wrapper",
			What: fmt.Sprintf("the node image holds runc-capfilter at %s and its containerd's runc runtime "+
				"uses it (BinaryName; nodeadapt.PatchContainerdConfig)", nodeadapt.WrapperPath),
			Reason: "the node's bounding set lacks CAP_SYS_RESOURCE as the host's does; " +
				"containerd 1.6 gives privileged containers only its own capabilities (oci/spec_opts_linux.go:126-131), " +
				"but a container that adds SYS_RESOURCE asks runc for it",
			Evidence: "2026-12-02, same node: a CRI container adding SYS_RESOURCE failed `unable to apply caps: " +
				"operation not permitted` with the stock runc and ran with the wrapper (without that capability); " +
				"`ctr run --cap-add CAP_SYS_RESOURCE` likewise, and ran with --runc-binary runc-capfilter (TestNodeRunsPodsWithAdaptedContainerd)",
		},
	}
}

// DaggerAdaptations lists the adaptations of the Dagger path (`labctl
// rehearse dagger`): how the engine built from the pinned tag runs on the
// private daemon, and what its Go SDK gets.
func DaggerAdaptations() []Adaptation {
	return []Adaptation{
		{
			Name: "Dagger engine on the private daemon (runner host)",
			What: fmt.Sprintf("`rehearse dagger engine up` loads the engine image built here and runs it as "+
				"container %s on the private daemon; the CLI is pointed at it with _EXPERIMENTAL_DAGGER_RUNNER_HOST=%s "+
				"and that daemon's DOCKER_HOST (ci/hack/rehearsal/daggerbuild engine.go)",
				daggerbuild.EngineContainer, daggerbuild.RunnerHost(daggerbuild.EngineContainer)),
			Reason: "with no runner host the CLI runs image registry.dagger.io/engine:v0.21.8 --privileged on " +
				"the current Docker, pulling it if missing (engine/client/drivers/container.go:275-293 @v0.21.8): " +
				"the machine's Docker refuses --privileged and no registry is reachable; " +
				"the variable is upstream's (cmd/dagger/engine.go:28 @v0.21.8), docker-container:// runs " +
				"`docker exec -i NAME buildctl dial-stdio` (engine/client/drivers/container.go:28,197)",
			Evidence: "issue 37 fact 3; 2026-12-05: " +
				"the CLI built here prints `dagger v0.21.8 (image://registry.dagger.io/engine:v0.21.8) linux/amd64`, " +
				"i.e. its default runner is the image on the current Docker; " +
				"with the runner host set, `dagger core version` run in the namespace (nsenter --net) " +
				"answered v0.21.8 in 6.4 s from the engine built here on the private daemon (dockerd 20.10.24)",
		},
		{
			Name: "Dagger engine image built here",
			What: "`rehearse dagger build` builds registry.dagger.io/engine:v0.21.8 from the tag's snapshot " +
				"on a Debian bookworm root file system instead of Wolfi (ci/hack/rehearsal/daggerbuild engineimage.go, " +
				"`rehearse dagger build --plan`): runc linked against Debian's glibc and libseccomp, " +
				"tini from Debian, no isa-l (pigz), no qemu binfmt binaries, no Python or TypeScript SDK, " +
				"/usr/bin/xtables-*-multi linked to Debian's /usr/sbin ones, engine.Version/Tag set on every Go program; " +
				"the Go SDK runtime is Debian plus this machine's Go toolchain and codegen with empty module " +
				"and build caches instead of golang:1.26-alpine with warm ones",
			Reason: "no image registry is reachable here; upstream builds the image with Dagger itself on " +
				"Wolfi (toolchains/engine-dev/build/builder.go, sdk.go @v0.21.8)",
			Evidence: "2026-12-05: the engine first stopped `ensure iptables symlinks: " +
				"/usr/bin/xtables-legacy-multi missing` (network/netinst/iptables.go:53-63 @v0.21.8), " +
				"and the module first failed `stat /go/pkg/mod: no such file or directory` in the Go SDK runtime; " +
				"both fixed in the image, then the engine answered and loaded the module",
		},
		{
			Name: "Dagger engine without CAP_SYS_RESOURCE",
			What: "the engine container, privileged, runs through the private daemon's runc-capfilter, " +
				"so it and every insecure-root container it starts (the module's Docker-in-Docker service) " +
				"lack CAP_SYS_RESOURCE; the DinD daemon inside needs the same capability filter and its kind " +
				"nodes the same node settings (nodeadapt) as the rehearsal's",
			Reason: "insecure-root containers get the engine process's own capabilities " +
				"(internal/buildkit/util/entitlements/security/security_linux.go:20-31,145 @v0.21.8, " +
				"getAllCaps from cap.Current()), and the host's bounding set lacks CAP_SYS_RESOURCE",
			Evidence: "issue 37 fact 7; the capability wrapper adaptation above (CapBnd 000001fffeffffff)",
		},
		{
			Name: "Dagger engine on cgroup v1",
			What: "nothing is changed: the engine's resource monitor skips sampling on cgroup v1 and logs about it",
			Reason: "/sys/fs/cgroup is cgroup v1 here; NewMonitor returns before preparing controllers " +
				"when it is not cgroup v2 (internal/buildkit/executor/resources/monitor.go:224-228 @v0.21.8), " +
				"noisy logs reported upstream (dagger/dagger#8806)",
			Evidence: "issue 37 fact 7; kubelet on cgroup v1 above",
		},
		{
			Name: "Dagger engine registry mirrors",
			What: "engine up writes engine.json registries: REGISTRY → mirrors from --mirror, " +
				"and a plain-HTTP entry for each --http host (a mirror's own entry, so the origin stays HTTPS); " +
				"mounted at /etc/dagger/engine.json (ci/hack/rehearsal/daggerbuild engineconfig.go)",
			Reason: "the images the module pulls are served by a registry inside the rehearsal's namespace, " +
				"not by their registries; the keys are upstream's (engine/config/config.go:35,85-90; a mirror uses " +
				"its own entry else the origin's, engine/server/registryhosts.go:41-45 @v0.21.8; engine/config/path.go:4)",
			Evidence: "issue 37 fact 4; TestEngineConfigJSON renders the file",
		},
		{
			Name: "Dagger engine garbage collector",
			What: fmt.Sprintf("engine up writes engine.json gc reservedSpace=%s and maxUsedSpace=%s and "+
				"no minFreeSpace (daggerbuild.RehearsalGC); `rehearse dagger run` checks the free disk before "+
				"the calls instead", daggerbuild.RehearsalGC.ReservedSpace, daggerbuild.RehearsalGC.MaxUsedSpace),
			Reason: "upstream's default reserves 10% of the disk capped at 10 GB and prunes whenever less than " +
				"20% is free (engine/server/gc.go:377-386,430-433 @v0.21.8); the rehearsal's own images and caches leave " +
				"less than that free on this disk, so the engine pruned the lab's cache between a cold and a warm call; " +
				"a minFreeSpace prunes the same way once the lab in the DinD service fills " +
				"the disk (pruneTargetBytes asks for the missing free space whatever reservedSpace says, " +
				"dagql/cache_prune.go:579-611 @v0.21.8). The keys are upstream's (engine/config/config.go:92-139; " +
				"docs/current_docs/reference/configuration/engine.mdx @v0.21.8)",
			Evidence: "2026-12-06 (ci/hack/rehearsal/testdata/findings/2026-12-06-dagger-first-runs/run5-engine-gc.log): " +
				"after the cold call the engine's disk-pressure collector reclaimed 8,353,285,120 bytes (policy 2, " +
				"all records), and the second call rebuilt labctl and helm; with minFreeSpace=10GB a 1.36 GB target " +
				"removed 14.09 GB, the call's whole tree (ci/hack/rehearsal/testdata/findings/2026-12-06-dagger-disk)",
		},
		{
			Name: "Go proxy for the Dagger module's build",
			What: fmt.Sprintf("engine up sets %s=http://<the daemon's bridge gateway>:5001 on the engine; "+
				"there a static GOPROXY file tree made by `rehearse dagger build` (daggerbuild.ModuleProxy) is served",
				daggerbuild.GoProxyEnv),
			Reason: "the Go SDK builds the module with the engine's GOPROXY (core/sdk/go_sdk.go:900-906 @v0.21.8), " +
				"which a container gets only from the engine's _DAGGER_ENGINE_SYSTEMENV_<NAME> " +
				"(engine/engineutil/executor_spec.go:944-953 @v0.21.8); no proxy is reachable from the namespace",
			Evidence: "issue 37 fact 5; 2026-12-05: with the tree served at 172.17.0.1:5001 in the namespace " +
				"(`rehearse dagger goproxy`), `dagger functions` in a fresh clone listed the module's functions (3 min 40 s); " +
				"without a .info for github.com/dagger/querybuilder's pseudo-version the Go SDK's `go get` had stopped " +
				"`reading http://172.17.0.1:5001/github.com/dagger/querybuilder/@v/v0.0.0-20260402040506-574a5e81cb59.info: 404` " +
				"(fixed: CompleteInfos)",
		},
		{
			Name: "GONOSUMDB=dagger.io/dagger in the Go SDK runtime",
			What: "the Go SDK runtime image built here sets GONOSUMDB=dagger.io/dagger (daggerbuild.GoSDKConfig); " +
				"dagger.io/dagger at the engine's pinned commit is served from a git snapshot of dagger/dagger-go-sdk, " +
				"the commit checked by gitsnap",
			Reason: "the module's go.sum has no line for dagger.io/dagger, so the codegen's " +
				"`go get dagger.io/dagger@<commit>` (cmd/codegen/generator/go/generate_module.go:250-262 @v0.21.8) " +
				"asks the checksum database, which is not reachable from the namespace",
			Evidence: "the previous try of issue 37 (lead's brief, 2026-12-04): " +
				"served as v0.21.5-0.20260727204138-56bb30426a84 with GONOSUMDB for it; " +
				"2026-12-05: the Go SDK's codegen in the engine downloaded it from the rehearsal's Go proxy " +
				"and the module loaded; the proxy logged a request for /sumdb/sum.golang.org/supported (404), " +
				"so cmd/go would go to the checksum database itself for any module outside go.sum and GONOSUMDB",
		},
	}
}

// ModuleAdaptations lists what the Dagger module's run on this machine
// adds to Adaptations: where the images the engine pulls come from. The
// module's code is unchanged; only the engine's configuration and the lab
// file it is given differ.
func ModuleAdaptations() []Adaptation {
	return []Adaptation{
		{
			Name: "the module's images built here",
			What: "golang:1.26, docker:29-dind and docker:29-cli (.dagger/labcmd/layout.go) are built by " +
				"`rehearse module-images` (ci/hack/rehearsal/moduleimages) from pinned sources — Docker 29.7.2 from " +
				"vendored snapshots of moby/moby and docker/cli, containerd v2.3.3 and runc v1.4.3 as moby pins them, " +
				"this machine's Go 1.26, Debian bookworm's packages — and served by the rehearsal's registry; " +
				"`rehearse module-images` lists each image's differences from the published one",
			Reason: "no registry is reachable here, so Docker Hub's images cannot be pulled",
			Evidence: "2026-12-05, 2 loaded cores: `rehearse module-images` built all three (docker CLI 13m45s, " +
				"dockerd 1m8s on a warmed Go cache, each image 2-4 min); on the private daemon docker:29-dind " +
				"run privileged with the module's env and arguments started dockerd 29.7.2 (iptables v1.8.9 nf_tables), " +
				"loaded docker:29-cli and ran `docker --version` (Docker version 29.7.2, build a7dcaa6); " +
				"inside it a --privileged container got CapEff 0000003ffeffffff (all but CAP_SYS_RESOURCE) " +
				"with no capability filter: dockerd 29 sizes privileged capabilities from its own bounding set; " +
				"golang:1.26 printed go1.26.8, GOPATH /go, GOTOOLCHAIN local",
		},
		{
			Name: "registry mirrors for the engine",
			What: "the engine's engine.json \"registries\" sends docker.io, registry.k8s.io, " +
				"quay.io and ghcr.io to ADDR/<host> over plain HTTP (ci/hack/rehearsal/registry Mirrors), " +
				"ADDR being a distribution v3.1.1 registry run in the private daemon's " +
				"network namespace on the docker0 address, port 5000 (`rehearse registry up`), " +
				"holding the module's images and the lab's bundle under those names (`rehearse registry push`)",
			Reason: "no registry is reachable here; a mirror is the engine's own way to take images from elsewhere " +
				"(dagger v0.21.8 engine/server/registryhosts.go:42-53), so the module's From calls stay as they are",
			Evidence: "2026-12-05: registry v3.1.1 in netns gpu-lab-dimages; `rehearse registry push --module-images` " +
				"put the three images (12.8 s); the private daemon pulled 127.0.0.1:5000/docker.io/library/docker:29-dind " +
				"(16 s), a container on its bridge read http://172.17.0.1:5000/v2/_catalog; not yet run through an engine",
		},
		{
			Name: "module options of a runner without internet access",
			What: "the clone gets a .env beside dagger.json with GPU_LAB_GOPROXY=http://<the daemon's " +
				"bridge gateway>:5001 (the Go proxy tree of `rehearse dagger build`), GPU_LAB_GOSUMDB=off and " +
				"GPU_LAB_CHARTS=<the chart archives of `rehearse charts`> (ci/hack/rehearsal/daggerrun " +
				"ModuleOptions.DotEnv): Dagger's user defaults for the module's constructor (dagger v0.21.8 " +
				"core/modulesource.go:1045-1088, core/modfunc.go:553-611), so each README command runs word for word",
			Reason: "the module's Go builds (labctl, helm) fetch modules with the options' GOPROXY and GOSUMDB " +
				"(.dagger/main.go goBuilder), and its bundle pulls the charts from their repositories unless " +
				"--charts names the archives (.dagger/bundle.go charts); from the namespace neither the public Go proxy, " +
				"the checksum database nor the chart repositories are reachable. The options are the module's own, " +
				"documented for any such runner",
			Evidence: "2026-12-05 probe (ci/hack/rehearsal/testdata/runs/2026-12-05-dagger-probe): " +
				"with the three options given on the command line, `dagger call lab plan` built labctl " +
				"in the engine from golang:1.26 through the tree and printed the plan (5m12s); " +
				"given in .env from 2026-12-07 on (the run's dagger-rehearsal.md quotes the file)",
		},
		{
			Name: "node images named by the digest the registry serves",
			What: "the .env's GPU_LAB_VERSIONS=kindNodeImage=…,workerNodeImage=… " +
				"names kindest/node:<tag>@<digest the registry serves> (daggerrun NodeImageOverrides), not kind's published digest",
			Reason: "the module pulls every bundle image through the engine by its reference (.dagger/bundle.go " +
				"From(e.Ref)), and a digest-pinned pull asks the registry for that digest; the node image built " +
				"here cannot have the published digest, and a registry serves a manifest only under its own digest",
			Evidence: "2026-12-05: a recorded archive pushed as kindest/node:v0@sha256:099e0493… (the rehearsal " +
				"lab's pin) is served as sha256:6ed20d3c…; `docker pull …/docker.io/kindest/node@sha256:099e0493…` " +
				"fails `manifest unknown`, the served digest pulls; 2026-12-06: with kindNodeImage alone the " +
				"first real lab-test stopped at the bundle, the engine asking for the worker image's published " +
				"digest (`failed to resolve image \"docker.io/kindest/node:v1.36.4@sha256:099e…\": not found`); " +
				"with both, the bundle was fetched and the seed lab passed",
		},
	}
}

// Print writes the list for the rehearsal's report.
func Print(w io.Writer, list []Adaptation) error {
	for i, a := range list {
		if _, err := fmt.Fprintf(w, "%d. %s\n   what: %s\n   why: %s\n   evidence: %s\n", i+1, a.Name, a.What, a.Reason, a.Evidence); err != nil {
			return err
		}
	}
	return nil
}
