// Package stages builds the real lab on a Docker daemon as an ordered list
// of actions, kind-style: cluster → kamaji → tenants → workers → hami → gpus.
// The names are fixed: they are the words of `labctl up --only`, the Dagger
// functions, the state directory, the status lines and the reports.
//
//   - cluster: the kind management cluster;
//   - kamaji: cert-manager, Kamaji and its datastore;
//   - tenants: one TenantControlPlane per tenant, its kubeconfig;
//   - workers: one kindest/node container per worker, joined with kubeadm,
//     kube-proxy and kindnet, Nodes Ready; the tenants side by side, and
//     inside a tenant its workers started, then joined, side by side;
//   - hami: every worker labelled gpu=on and given NVIDIA's mock NVML
//     library with its cards (DaemonSet gpu-lab-nvml-mock), then HAMi
//     installed with its own device plugin and vGPU monitor on those workers
//     (scheduler and webhook ready);
//   - gpus: the lab's readiness gates: HAMi's device plugin ready on every
//     worker, each worker's nvidia.com/gpu capacity and allocatable split ×
//     cards as the kubelet counts the plugin's devices, HAMi's /metrics
//     lists every card (gpus.SeesAllCards).
//
// Every stage can say what it would do (Plan, for `labctl up --dry-run`),
// whether its work is already there (Check, so a second `up` skips it and
// says so), and do it (Run). The Runner executes them in order, records each
// outcome in the state directory, and on failure writes a diagnostics bundle
// and tears the lab down unless asked to keep it. A stage whose first steps
// need only an earlier stage's work has them begun in the background beside
// the stages in between (ahead.go: the workers started while Kamaji
// installs); the first failure, there or in the stage running, stops both. The package is silent: it
// reports through a callback and the CLI does the printing.
//
// Side effects go through small interfaces (Docker, Kind, Helm, cluster
// clients), so order, skips, retries and failure handling are tested with
// fakes; every decision is a pure function with a table test.
//
// Layout, shaped like kind's pkg/cluster: this package is the small surface
// labctl uses (Runner, Stage, All and Names, Env and its edges, Error,
// Preflight, Down, Diagnose, TenantStatus, Reach), over packages under
// ci/internal that each own one thing and import nothing of the stages:
//
//   - ci/internal/kube: applying Kubernetes objects and judging whether
//     one is ready (the *Ready predicates the stages wait on);
//   - ci/internal/kubeconfig: a kubeconfig's server and CA, and the
//     credentials of a kubeadm join (bootstrap token, CA hash);
//   - ci/internal/nodeimage: an image from the daemon into a kind node's
//     containerd;
//   - ci/internal/steps: a stage's work as one list of steps, each with
//     what the dry-run says of it and what the run does, so Plan prints
//     the steps Run executes;
//   - ci/images (PinnedCharts): which charts the lab installs, at which
//     pinned versions (also what `labctl images` bundles).
//
// and over its own rooms under ci/stages/internal, one concern of the
// stages each, which import neither this package nor one another (ci/internal
// layout_test.go), while this package keeps thin glue on *Env:
//
//   - ci/stages/internal/owner: the owner record in the state dir, the
//     labels of what labctl starts, and whether the kind cluster, its nodes
//     and a worker container are this state dir's;
//   - ci/stages/internal/preflight: the daemon's host judged before any
//     stage (host facts, the disk need, what to change), and a node image
//     an image bundle lacks;
//   - ci/stages/internal/pullpolicy: a bundle's MutatingAdmissionPolicy
//     that makes tenant control-plane pods ask IfNotPresent, its apply and
//     the dry-run probe that proves it;
//   - ci/stages/internal/diagnostics: the diagnostics bundle a failure
//     leaves (pods and events tables, component logs, workers' journals).
//
// Decisions
//
//   - Preflight (preflight.go, ci/stages/internal/preflight): before any stage, the
//     daemon's host is read where the lab will run (docker info; one
//     privileged container from the node image) and refused, with what to
//     change, when it cannot start privileged containers, has inotify
//     limits below kind's or too little free disk. A cgroup v1 host is
//     not refused: Reach.CgroupV1 makes every kubelet the stages render
//     start there (failCgroupV1: false), and preflight says so.
//   - Helm: a pinned helm CLI (v3.19.0, `go install
//     helm.sh/helm/v3/cmd/helm@v3.19.0`), not the Go SDK. helm's SDK drags
//     several hundred packages (oras, containerd, docker/cli, the whole of
//     k8s.io/kubectl) into the root module, and the root module's `go test`
//     must stay fast on 2 cores; the CLI is a single binary the Dagger tools
//     container installs once, and its command line is a pure function
//     (ci/internal/helm.UpgradeInstallArgs) so what runs is tested and
//     printed by --dry-run.
//   - kube-proxy conntrack (Kubernetes v1.36.4
//     pkg/proxy/conntrack/sysctls.go:109, kind issue 2240): the lab deploys its own
//     kube-proxy in each tenant with conntrack.maxPerCore: 0 (render.KubeProxy)
//     instead of Kamaji's addon. Kamaji's soot controller owns and re-applies
//     its kube-proxy ConfigMap, so kind's fix cannot be patched in, and the
//     alternative (raising nf_conntrack_max on the Docker host) needs root on
//     a host labctl may not control (a DinD service).
//   - HAMi's own device plugin (nvmlmock.go, gpus.go): the cards are
//     registered, Allocate answered and the node lock released by HAMi
//     v2.10.0's chart DaemonSet, which reads them through NVIDIA's mock
//     NVML library (k8s-test-infra pkg/gpu/mocknvml at 0eeb2ee5) installed
//     under /var/lib/nvml-mock/driver from the lab file: no code of
//     gpu-lab's writes a registration or finishes a bind in the real lab.
//     HAMi's scheduler reads a node's cards on a fixed 15 s tick, so the
//     gpus stage waits for its /metrics to list every card. (The local
//     environment, which has no kubelet, keeps gpu-lab's registrar and bind
//     finalizer: ci/testenv differences.go.)
//   - Worker join (join.go, joinconfig.go, workers.go): kubeadm join reads
//     a JoinConfiguration (/kind/kubeadm.conf, rendered by
//     render.JoinConfiguration) as kind v0.33.0 joins its own workers,
//     with the kubelet's node-ip set to the worker's IPv4 on the lab
//     network (kind's kubeletExtraArgs; `kubeadm config validate` of the
//     pinned kubeadm judges the file in ci/stages/kubeadmcheck), and skips
//     its preflight phase, as kind does; the worker is reset
//     (kubeadm reset -f) before every join, since a join only runs for an
//     absent Node and whatever is there is a join that did not finish; the
//     join is cut off only after kubeadm's own waits (defaultJoinTimeout). The
//     first bootstrap token of a tenant waits for the objects Kamaji's
//     kubeadm phases write after the TenantControlPlane is Ready
//     (joinPrerequisites).
//   - Workers side by side (workers_run.go): the stage's time is waits
//     (containerd booting, kubeadm's discovery and TLS bootstrap, Nodes
//     turning Ready), so the tenants run at the same time and, inside a
//     tenant, its workers start and preload at the same time, then join at
//     the same time, as kind starts and joins its own nodes. Per tenant the
//     order stays: all its workers running, then its networking and
//     Kamaji's join objects, then the joins, then the tunnel. The first
//     failure cancels the rest and is the error returned; the stage
//     returns only once everything it started has stopped. Image imports
//     into workers are the one bound, two at a time across the lab
//     (preloadsAtOnce): each keeps about a core busy. The hami stage's
//     worker images go in with the worker's own (beside the joins, or in
//     the background); a later stage's images go into the workers
//     already there the same way, two at a time (preloadStage). The hami stage installs into the tenants side
//     by side too. The kamaji stage imports each Helm release's images just
//     before that release installs, Kamaji's while cert-manager installs
//     (kamaji.go); every import into a node is one archive (nodeimage.Load).
//   - The konnectivity tunnel is proven where the workers join
//     (tunnel.go): once a tenant's Nodes are Ready, the stage waits for
//     Kamaji's konnectivity-agent DaemonSet and CoreDNS, then reads one log
//     line of the agent on each worker through the API server (API server →
//     kubelet through the tunnel). HAMi's webhook fails open, so a broken
//     tunnel would otherwise surface only as unmutated pods much later.
//   - No MetalLB: tenants are NodePort services advertised at the management
//     node's IPv4 address on the kind network (docker.ContainerIPv4 never
//     takes the IPv6 one).
package stages
