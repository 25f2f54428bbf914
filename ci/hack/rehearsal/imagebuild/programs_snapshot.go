package imagebuild

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gitsnap"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gobuild"
)

// The programs the module proxy here refuses (403 "not available" for
// github.com/clastix/kamaji, github.com/Project-HAMi/HAMi and the
// cert-manager command modules at the lab's versions)
// are built from git snapshots of their repositories, as kindnetd is:
// the tree at the pinned tag is extracted (Snapshot), and its own go.mod
// and go.sum decide the dependencies, which the module proxy does serve.

// Snapshot is an upstream repository at a pinned tag and the commit the
// tag names: the extraction checks that the snapshot's tag still names it,
// so the cache key (the commit) stands for the content. Without a tag the
// commit alone is the pin.
type Snapshot struct {
	// Repo is the GitHub owner/name, the key of --git-dir.
	Repo   string
	Tag    string
	Commit string
	// Time is the commit's time, for the build-date stamps upstream's
	// Makefiles take from git.
	Time time.Time
}

// pin is the snapshot as gitsnap checks it.
func (s Snapshot) pin() gitsnap.Pin { return gitsnap.Pin{Repo: s.Repo, Tag: s.Tag, Commit: s.Commit} }

// dir names the snapshot's extracted tree in the cache.
func (s Snapshot) dir() string {
	name := strings.ReplaceAll(s.Repo, "/", "+")
	if s.Tag != "" {
		name += "-" + s.Tag
	}
	return name + "-" + s.Commit[:12]
}

// rev is what the snapshot is called in messages: its tag, else its commit.
func (s Snapshot) rev() string {
	return s.pin().Rev()
}

// The lab's pinned snapshots (tags as the lab file and charts name them;
// commits and times read with `git rev-parse TAG^{commit}` and
// `git log -1 --format=%at TAG` in the fetched snapshots).
var (
	kamajiSnapshot = Snapshot{Repo: "clastix/kamaji", Tag: "26.8.2-edge",
		Commit: "ddbabd87ed0e8d7c319414383e153c46f21733a9", Time: time.Unix(1785738776, 0).UTC()}
	hamiSnapshot = Snapshot{Repo: "Project-HAMi/HAMi", Tag: "v2.10.0",
		Commit: "4707fb02c91c545bc7343ce26dba4c32919f9a3e", Time: time.Unix(1787293239, 0).UTC()}
	certManagerSnapshot = Snapshot{Repo: "cert-manager/cert-manager", Tag: "v1.18.3",
		Commit: "0be5a60e327cc1b39acb18b063fbdb7557002646", Time: time.Unix(1760526177, 0).UTC()}
	// certgenSnapshot is the ingress-nginx tree liangjw/kube-webhook-
	// certgen:v1.1.1 stands for (CertgenProgram says why): no tag, the
	// commit is the pin.
	certgenSnapshot = Snapshot{Repo: "kubernetes/ingress-nginx",
		Commit: "54523641a89a2b026180eb1e779152b8e939b11a", Time: time.Unix(1634058467, 0).UTC()}
	// kamajiEtcdSnapshot is the kamaji-etcd chart resolved into Kamaji's
	// (chartbuild's selectKamajiEtcd); charts are made from these pins too.
	kamajiEtcdSnapshot = Snapshot{Repo: "clastix/kamaji-etcd", Tag: "v0.17.0",
		Commit: "92f31f016f4e91eae69797a538f88d768ddc7099", Time: time.Unix(1783790721, 0).UTC()}
	// kindnetdSnapshot and KubeNetworkPoliciesSnapshot are kindnetd's
	// sources (KindnetdCommit says why these commits).
	kindnetdSnapshot            = Snapshot{Repo: "kubernetes-sigs/kind", Commit: kindnetdCommit}
	kubeNetworkPoliciesSnapshot = Snapshot{Repo: "kubernetes-sigs/kube-network-policies", Commit: kubeNetworkPoliciesCommit}
)

// pinned are every snapshot the rehearsal builds from, images and charts.
func pinned() []Snapshot {
	return []Snapshot{kamajiSnapshot, hamiSnapshot, certManagerSnapshot, certgenSnapshot, kamajiEtcdSnapshot, kindnetdSnapshot,
		kubeNetworkPoliciesSnapshot, nvmlMockSnapshot}
}

// PinFor is the pinned snapshot of repo at tag, or an error saying how to
// pin it.
func PinFor(repo, tag string) (Snapshot, error) {
	for _, s := range pinned() {
		if s.Repo == repo && s.Tag == tag {
			return s, nil
		}
	}
	return Snapshot{}, fmt.Errorf("%s %s has no pinned commit: read it in a snapshot (git rev-parse %s^{commit}), check it is the release, "+
		"and add it to ci/hack/rehearsal/imagebuild/programs_snapshot.go", repo, tag, tag)
}

// ParseGitDirs parses --git-dir values, OWNER/NAME=DIR, into a map.
func ParseGitDirs(specs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, s := range specs {
		repo, dir, ok := strings.Cut(s, "=")
		owner, name, slash := strings.Cut(repo, "/")
		if !ok || !slash || owner == "" || name == "" || strings.Contains(name, "/") || dir == "" {
			return nil, fmt.Errorf("--git-dir %q: want OWNER/NAME=DIR, e.g. clastix/kamaji=/work/.mirror/clastix+kamaji/repo", s)
		}
		if prev, dup := out[repo]; dup && prev != dir {
			return nil, fmt.Errorf("--git-dir names %s twice (%s and %s)", repo, prev, dir)
		}
		out[repo] = dir
	}
	return out, nil
}

// kamajiProgram builds kamaji as its release does: goreleaser's ko pipe
// (kamaji 26.8.2-edge .github/workflows/release.yml:53-58 `goreleaser
// release`; .goreleaser.yaml:28-39 kos, bare, from the build "kamaji")
// builds with the build's env, flags and ldflags (goreleaser internal/
// pipe/ko/ko.go Default: ko.Ldflags = build.Ldflags, …): .goreleaser.yaml
// :6-19 main ".", CGO_ENABLED=0, -trimpath, and -X of internal.GitCommit
// ({{.Commit}}, the full commit), GitTag ({{.Tag}}), GitDirty (empty for a
// clean tree), BuildTime ({{.Date}}, the build's time in RFC 3339 — here
// the commit's, so a rebuild is the same) and GitRepo ({{.GitURL}}, the
// clone's remote: the GitHub address).
func kamajiProgram(tree string) gobuild.Program {
	s := kamajiSnapshot
	pkg := "github.com/clastix/kamaji/internal"
	return gobuild.Program{
		Name:    "kamaji-" + s.Tag,
		Module:  "github.com/clastix/kamaji",
		Version: s.Tag,
		// main.go at the module root: go build names the binary kamaji
		Packages: []string{"."},
		LDFlags: strings.Join([]string{
			"-X " + pkg + ".GitCommit=" + s.Commit,
			"-X " + pkg + ".GitTag=" + s.Tag,
			"-X " + pkg + ".GitDirty=",
			"-X " + pkg + ".BuildTime=" + s.Time.Format(time.RFC3339),
			"-X " + pkg + ".GitRepo=https://github.com/clastix/kamaji",
		}, " "),
		Trimpath: true,
		Tree:     tree,
		TreeKey:  s.Commit,
	}
}

// hamiVersion is the VERSION HAMi's release builds its image with: the
// tag (.github/workflows/call-release-image.yaml:122 VERSION=${{ env.ref }}
// into docker/Dockerfile.hamimaster:10 `make all VERSION=$VERSION`).
const hamiVersion = "v2.10.0"

// hamiProgram builds the Go binaries HAMi's image holds as `make all`
// does (HAMi v2.10.0 Makefile:51-57; version.mk:3-4 CMDS=scheduler
// vGPUmonitor, DEVICES=nvidia): `go build -ldflags '$(GO_BUILD_LDFLAGS)'
// -o bin/<cmd> ./cmd/<cmd>` and `-o bin/nvidia-device-plugin
// ./cmd/device-plugin/nvidia`. CGO_ENABLED is left to go's default, on in
// the golang:1.26.6-bookworm build image that has gcc (Dockerfile.
// hamimaster:1,6), so the binaries are linked with cgo against glibc 2.36
// — this machine is bookworm too. GO_BUILD_LDFLAGS (Makefile:13-19): -s
// -w, the version into pkg/version and the device plugin's info package,
// REVISION `git rev-parse --short HEAD` (:7, a docker build has no
// GITHUB_ACTIONS), buildDate `date +%Y%m%d-%T`, here the commit time so a
// rebuild is the same.
func hamiProgram(tree string) gobuild.Program {
	s := hamiSnapshot
	pkg := "github.com/Project-HAMi/HAMi/pkg"
	return gobuild.Program{
		Name:     "hami-" + s.Tag,
		Module:   "github.com/Project-HAMi/HAMi",
		Version:  s.Tag,
		Packages: []string{"./cmd/scheduler", "./cmd/vGPUmonitor", "./cmd/device-plugin/nvidia"},
		LDFlags: strings.Join([]string{"-s", "-w",
			"-X " + pkg + "/version.version=" + hamiVersion,
			"-X " + pkg + "/device-plugin/nvidiadevice/nvinternal/info.version=" + hamiVersion,
			"-X " + pkg + "/version.revision=" + s.Commit[:7],
			"-X " + pkg + "/version.buildDate=" + s.Time.Format("20060102-15:04:05"),
		}, " "),
		CGO:     true,
		Rename:  map[string]string{"nvidia": "nvidia-device-plugin"},
		Tree:    tree,
		TreeKey: s.Commit,
	}
}

// certManagerCommands are the cert-manager commands the lab runs, each
// its own module under cmd/ (v1.18.3 cmd/<name>/go.mod).
var certManagerCommands = []string{"controller", "webhook", "cainjector", "startupapicheck"}

// certManagerProgram builds one cert-manager command as make/server.mk
// does at v1.18.3 (:25 `cd cmd/controller && go build -o … $(GOFLAGS)
// -ldflags '$(GOLDFLAGS)' main.go`; the others likewise): CGO_ENABLED=0
// (make/00_mod.mk:41), GOFLAGS -trimpath (:50), GOLDFLAGS -w -s with
// pkg/util.AppVersion and AppGitCommit (:54-56) — VERSION is `git
// describe --tags` (Makefile:79-80), the tag; GITCOMMIT `git rev-parse
// HEAD` (:82). tree is the command's module directory in the extracted
// repository, its go.mod's `replace github.com/cert-manager/cert-manager
// => ../../` (cmd/controller/go.mod:12) pointed at the extracted root.
func certManagerProgram(name, tree string) gobuild.Program {
	s := certManagerSnapshot
	pkg := "github.com/cert-manager/cert-manager/pkg/util"
	return gobuild.Program{
		Name:    "cert-manager-" + name + "-" + s.Tag,
		Module:  "github.com/cert-manager/cert-manager/" + name + "-binary",
		Version: s.Tag,
		// main.go of a module named …/<name>-binary: go build would name it
		// <name>-binary; the Makefile's -o names it <name>
		Packages: []string{"."},
		LDFlags:  "-w -s -X " + pkg + ".AppVersion=" + s.Tag + " -X " + pkg + ".AppGitCommit=" + s.Commit,
		Trimpath: true,
		Rename:   map[string]string{name + "-binary": name},
		Tree:     tree,
		TreeKey:  s.Commit,
	}
}

// certgenProgram builds the stand-in for docker.io/liangjw/kube-webhook-
// certgen:v1.1.1, which HAMi v2.10.0's chart runs on Kubernetes ≥ 1.22
// (charts/hami/values.yaml:245-248 imageNew; templates/scheduler/
// job-patch/job-createSecret.yaml and job-patchWebhook.yaml choose it by
// KubeVersion.Minor ≥ 22 and pass only args: `create --cert-name
// --key-name --host --namespace --secret-name`, `patch --webhook-name
// --namespace --patch-validating=false --secret-name`). No repository of
// liangjw is stored; v1.1.1 is the tag of kubernetes/ingress-nginx's
// kube-webhook-certgen image of October 2021 (ingress-nginx d74fa2f5,
// charts/ingress-nginx/values.yaml: "tag: v1.1.1", "We skip
// version v1.1 as it had a regression"), whose source is images/
// kube-webhook-certgen/rootfs at 54523641 ("fix regression", the last
// change to that directory before d74fa2f5): module github.com/jet/
// kube-webhook-certgen (rootfs/go.mod:1), the flags the chart passes
// (rootfs/cmd/create.go:39-43, cmd/patch.go:112-118) and
// admissionregistration/v1 (pkg/k8s/k8s.go:8), which Kubernetes ≥ 1.22
// needs. jet/kube-webhook-certgen's own tags do not serve: its newest,
// v1.5.2, has the same flags but admissionregistration/v1beta1 (pkg/k8s/
// k8s.go:6), the chart's pick for Kubernetes < 1.22. Built as rootfs/
// Dockerfile:21 does: CGO_ENABLED=0 go build -a -o kube-webhook-certgen
// main.go (no ldflags: core.Version stays "0.0.1-dev").
func certgenProgram(tree string) gobuild.Program {
	s := certgenSnapshot
	return gobuild.Program{
		Name:     "kube-webhook-certgen-" + s.Commit[:8],
		Module:   "github.com/jet/kube-webhook-certgen",
		Version:  s.Commit,
		Packages: []string{"."},
		Tree:     tree,
		TreeKey:  s.Commit,
	}
}

// certgenTag is the liangjw/kube-webhook-certgen tag HAMi v2.10.0's chart
// names (charts/hami/values.yaml:248) and CertgenProgram stands in for.
const certgenTag = "v1.1.1"
