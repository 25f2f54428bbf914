// Package stages builds the real lab on a Docker daemon as an ordered list
// of actions, kind-style: cluster → kamaji → tenants → workers → hami → gpus.
// The names are fixed: they are the words of `labctl up --only`, the Dagger
// functions, the state directory, the status lines and the reports.
//
//   - cluster: the kind management cluster;
//   - kamaji: cert-manager, Kamaji and its datastore;
//   - tenants: one TenantControlPlane per tenant, its kubeconfig;
//   - workers: one kindest/node container per worker, joined with kubeadm,
//     kube-proxy and kindnet, Nodes Ready;
//   - hami: every worker's GPU registration written onto its Node, then HAMi
//     installed (scheduler and webhook ready; no device plugin);
//   - gpus: the bind finalizer in every tenant, then the lab's readiness
//     gates: every worker's allocatable GPU resources are the inventory's
//     (deviceplugin.AllocatableGaps), HAMi's /metrics lists every card
//     (gpus.SeesAllCards).
//
// Every stage can say what it would do (Plan, for `labctl up --dry-run`),
// whether its work is already there (Check, so a second `up` skips it and
// says so), and do it (Run). The Runner executes them in order, records each
// outcome in the state directory, and on failure writes a diagnostics bundle
// and tears the lab down unless asked to keep it. The package is silent: it
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
//     containerd, and the one-file image labctl ships itself in;
//   - ci/images (PinnedCharts): which charts the lab installs, at which
//     pinned versions (also what `labctl images` bundles).
//
// Decisions
//
//   - Preflight (preflight.go, preflight_host.go): before any stage, the
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
//   - Bind finalizer placement: in each tenant, as a one-replica Deployment
//     of labctl itself (`labctl finalizer`, hidden), not in the labctl
//     process. The lab then keeps finishing HAMi binds (and re-asserting the
//     GPU registration) after `labctl up --keep` exits, while a user pokes at
//     it from `labctl shell`. Its image is made offline: the static labctl
//     binary in a one-file tar, `docker import`ed, then `docker save`d into
//     each worker's containerd with `ctr -n k8s.io images import --local
//     --platform=<the daemon's> --snapshotter=<the worker CRI's>`, as
//     `kind load` does but for the daemon's platform only and without
//     containerd's transfer service (ci/internal/nodeimage/containerd.go says
//     why).
//   - GPU registration before HAMi starts (registration.go): HAMi v2.10.0
//     reads a node's cards only in registration passes (Node add, leadership,
//     a fixed 15 s tick) and rejects pods on an unregistered node in a way
//     kube-scheduler retries only after 5 minutes. Registering first lets
//     its first pass see the cards; the gpus stage still waits for HAMi's
//     metrics to list every card before the lab is ready.
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
