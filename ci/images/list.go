package images

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// Place is where an image runs.
type Place string

const (
	// OnDaemon: the lab's Docker daemon starts containers from it (kind nodes, workers).
	OnDaemon Place = "docker daemon"
	// Management: a pod on the kind management node.
	Management Place = "management node"
	// Worker: a pod on every tenant worker.
	Worker Place = "tenant worker"
)

// Stage names the image is first needed in; they equal ci/stages' names
// (a test there keeps them in step; images sits below stages).
const (
	StageCluster = "cluster"
	StageKamaji  = "kamaji"
	StageTenants = "tenants"
	StageWorkers = "workers"
	StageHAMi    = "hami"
	StageGPUs    = "gpus"
)

// The Helm releases of the management cluster whose images the lab
// bundles; ci/stages installs them under these names.
const (
	ReleaseCertManager = "cert-manager"
	ReleaseKamaji      = "kamaji"
)

// Image is one image the lab runs.
type Image struct {
	// Ref is the reference as the manifest or config names it (tag, and the
	// digest where the lab pins one).
	Ref   string
	Stage string
	Place Place
	// Source says where the name comes from upstream.
	Source string
	// Preloaded names the node image that already holds it (kind's node
	// image build imports it); such images need no bundle.
	Preloaded string
	// PullPolicy is what the pod spec sets ("" for daemon images).
	PullPolicy string
	// Release, when set, is the Helm release whose pods run the image: the
	// stage imports it into the node just before that release's install,
	// beside the release installed before it (ci/stages kamaji.go), instead
	// of with the stage's other images before the stage starts.
	Release string
	// BundlePullPolicy, when set, is the policy the pod runs with when the
	// lab runs from a bundle: Kamaji's Always becomes IfNotPresent through
	// the MutatingAdmissionPolicy the tenants stage installs then
	// (render.BundlePullPolicyObjects).
	BundlePullPolicy string
}

// Bundled reports whether the image belongs in a bundle: pulled from a
// registry and not already inside a node image.
func (i Image) Bundled() bool { return i.Preloaded == "" }

// Upstream sources, at the versions ci/lab pins.
const (
	srcKindDefault  = "sigs.k8s.io/kind@v0.33.0 pkg/apis/config/defaults/image.go (kind's default node image)"
	srcWorkerImages = "ci/lab WorkerImages (kind v0.33.0 release notes, by digest)"
	srcNodeBuild    = "kind v0.33.0 pkg/build/nodeimage/buildcontext.go: a node image preloads " +
		"`kubeadm config images list` for its version, the containerd sandbox image, kindnetd and local-path"
	srcKindnetd    = "kind v0.33.0 pkg/build/nodeimage/const_cni.go kindnetdImage"
	srcLocalPath   = "kind v0.33.0 pkg/build/nodeimage/const_storage.go storageProvisionerImage/storageHelperImage"
	srcPause       = "kind v0.33.0 images/base/files/etc/containerd/config.toml sandbox_image"
	srcCertManager = "cert-manager v1.18.3 deploy/charts/cert-manager/values.yaml image.repository per component, " +
		"tag = appVersion, pullPolicy IfNotPresent; startupapicheck is a post-install hook"
	srcKamaji = "kamaji 26.8.2-edge charts/kamaji/templates/controller.yaml image.repository clastix/kamaji; " +
		"the lab sets image.tag and image.pullPolicy=IfNotPresent"
	srcKamajiEtcd = "kamaji 26.8.2-edge charts/kamaji/Chart.yaml:21-25 kamaji-etcd >=0.15.0 (no alias), " +
		"republished with the newest kamaji-etcd on every push; the lab pins the StatefulSet's image with --set " +
		"kamaji-etcd.image.repository/tag/pullPolicy (ci/images kamajietcd.go) to kamaji-etcd v0.17.0's default: " +
		"values.yaml:15-21 quay.io/coreos/etcd, tag v<appVersion 3.6.12> (_helpers.tpl:34-36)"
	srcEtcdJobs = "kamaji-etcd v0.17.0 templates/etcd_job_preinstall_2.yaml:7 (a post-install hook; " +
		"helm waits for it) container etcd-client: values.yaml:222-225 jobs.etcd quay.io/coreos/etcd:v3.5.6 IfNotPresent, " +
		"pinned with --set kamaji-etcd.jobs.etcd.image/tag/pullPolicy"
	srcEtcdKubectl = "kamaji-etcd v0.17.0 templates/etcd_job_preinstall_2.yaml:26 (post-install hook) initContainer " +
		"kubectl: jobs.kubectl.tag, or when empty v<management major.minor> (_helpers.tpl:172-174; clastix/kubectl:v1.37 " +
		"on kind v0.33.0's node, no evidence it exists); pinned with --set kamaji-etcd.jobs.kubectl.image/tag; " +
		"the tag exists: " + etcdKubectlEvidence + "; no imagePullPolicy, so IfNotPresent for a non-latest tag"
	srcKamajiCP = "kamaji 26.8.2-edge api/v1alpha1 RegistrySettings (default registry.k8s.io, " +
		"kube-apiserver/kube-controller-manager/kube-scheduler) tag = spec.kubernetes.version; " +
		"internal/builders/controlplane/deployment.go:617 sets PullAlways on kube-apiserver (with a bundle: IfNotPresent, " +
		"ci/render bundlepullpolicy.go)"
	srcKonnServer = "kamaji 26.8.2-edge api/v1alpha1/tenantcontrolplane_types.go default " +
		"image registry.k8s.io/kas-network-proxy/proxy-server, tag spec.addons.konnectivity.server.version; " +
		"internal/builders/controlplane/konnectivity_server.go:128 sets PullAlways (with a bundle: IfNotPresent, " +
		"ci/render bundlepullpolicy.go)"
	srcKonnAgent = "kamaji 26.8.2-edge api/v1alpha1/tenantcontrolplane_types.go " +
		"default image registry.k8s.io/kas-network-proxy/proxy-agent, " +
		"tag spec.addons.konnectivity.agent.version (internal/resources/konnectivity/agent.go)"
	srcCoreDNS = "kamaji 26.8.2-edge internal/kubeadm/addon.go AddCoreDNS → k8s.io/kubernetes v1.36.3 (Kamaji's " +
		"go.mod) cmd/kubeadm/app/images GetDNSImage: registry.k8s.io/coredns/coredns:<constants.CoreDNSVersion v1.14.2>, " +
		"manifests.go IfNotPresent"
	srcKubeProxy = "ci/render KubeProxy (the lab's own DaemonSet), IfNotPresent"
	srcHAMi      = "recorded HAMi chart 2.10.0 rendering (ci/render/testdata/hami-chart-2.10.0): " +
		"values global.imageTag, scheduler.kubeScheduler.image (the lab turns mockDevicePlugin off: " +
		"the registrar advertises the GPUs); IfNotPresent. kube-scheduler's tag would follow the tenant " +
		"cluster's version (HAMi v2.10.0 charts/hami/templates/_helpers.tpl:103-119 resolvedKubeSchedulerTag, " +
		".Capabilities.KubeVersion.Version); the lab sets scheduler.kubeScheduler.image.tag (ci/render hami.go)"
	srcCertgen = "HAMi v2.10.0 charts/hami/values.yaml " +
		"scheduler.patch.imageNew docker.io/liangjw/kube-webhook-certgen:v1.1.1, " +
		"chosen by the cluster's minor >= 22 (templates/scheduler/job-patch/job-createSecret.yaml:40-46, " +
		"job-patchWebhook.yaml:40; the tenants run v1.34-v1.36), hooks, IfNotPresent"
	srcNVMLMock = "NVIDIA/k8s-test-infra .github/workflows/nvml-mock-publish.yaml:12-22,53,61@0eeb2ee5 " +
		"(ghcr.io/nvidia/nvml-mock, tagged sha-<short commit> on every push to main; deployments/nvml-mock/Dockerfile:41 " +
		"puts the library in /usr/local/lib); ci/render nvmlmock.go DaemonSet gpu-lab-nvml-mock, IfNotPresent"
)

// Kamaji's control-plane defaults (api/v1alpha1 at 26.8.2-edge).
const (
	kamajiRegistry    = "registry.k8s.io"
	konnServerImage   = "registry.k8s.io/kas-network-proxy/proxy-server"
	konnAgentImage    = "registry.k8s.io/kas-network-proxy/proxy-agent"
	kubeadmCoreDNSTag = "v1.14.2" // k8s.io/kubernetes v1.36.3 cmd/kubeadm/app/constants CoreDNSVersion
)

// kind v0.33.0 node-image preloads (pkg/build/nodeimage).
const (
	kindnetdImage   = "docker.io/kindest/kindnetd:v20260820-69b56db7"
	localPathImage  = "docker.io/kindest/local-path-provisioner:v20260820-69b56db7"
	localPathHelper = "docker.io/kindest/local-path-helper:v20260131-7181c60a"
	pauseImage      = "registry.k8s.io/pause:3.10"
)

// List returns every image the lab runs, derived from its pinned versions
// and what ci/render renders for it, in stage order. Images that several
// tenants share appear once.
func List(l *lab.Lab) ([]Image, error) {
	s := &listing{seen: map[string]bool{}}
	// The images do not depend on addresses; the placeholder renders them.
	opts := render.Options{ManagementAddress: render.PlaceholderManagementAddress}
	for _, stage := range []func(*listing, *lab.Lab, render.Options) error{listManagement, listTenants, listWorkers, listHAMi} {
		if err := stage(s, l, opts); err != nil {
			return nil, fmt.Errorf("image list: %w", err)
		}
	}
	// A lab file names some of these (versions.kindNodeImage whole, the
	// others' tags): a malformed digest is refused here, not by a pull.
	for _, i := range s.out {
		if err := checkDigest(i.Ref); err != nil {
			return nil, fmt.Errorf("image list: %w (check the lab file's versions)", err)
		}
	}
	return s.out, nil
}

// listing is List's result so far: each image once per place.
type listing struct {
	out  []Image
	seen map[string]bool
}

func (s *listing) add(i Image) {
	k := Normalize(i.Ref) + "|" + string(i.Place)
	if !s.seen[k] {
		s.seen[k] = true
		s.out = append(s.out, i)
	}
}

// listManagement: the cluster and kamaji stages' images.
func listManagement(s *listing, l *lab.Lab, opts render.Options) error {
	kc, err := render.KindConfig(l, opts)
	if err != nil {
		return err
	}
	mgmtImage := kc.Nodes[0].Image
	s.add(Image{Ref: mgmtImage, Stage: StageCluster, Place: OnDaemon, Source: srcKindDefault + "; ci/render KindConfig"})
	// kind's own cluster runs what its node image holds (kubeadm's etcd and
	// CoreDNS of v1.37 too; their tags are not derived here, and being
	// preloaded they never go into a bundle).
	for _, ref := range nodePreloads(nodeVersion(mgmtImage)) {
		s.add(Image{Ref: ref, Stage: StageCluster, Place: Management, Source: srcNodeBuild, Preloaded: mgmtImage})
	}
	cm := "quay.io/jetstack/cert-manager-"
	for _, c := range []string{"controller", "webhook", "cainjector", "startupapicheck"} {
		s.add(Image{Ref: cm + c + ":" + l.Versions.CertManager, Stage: StageKamaji, Place: Management,
			Source: srcCertManager, PullPolicy: "IfNotPresent", Release: ReleaseCertManager})
	}
	s.add(Image{Ref: "clastix/kamaji:" + l.Versions.KamajiImage, Stage: StageKamaji, Place: Management, Source: srcKamaji,
		PullPolicy: "IfNotPresent", Release: ReleaseKamaji})
	// Cert-manager's chart v1.18.3 and Kamaji's pick no image from the
	// cluster's version (cert-manager deploy/charts/cert-manager/templates/
	// _helpers.tpl:182-188: tag, else appVersion — no template reads
	// .Capabilities.KubeVersion; kamaji 26.8.2-edge
	// charts/kamaji/templates/controller.yaml:53 image.tag, set by the lab);
	// kamaji-etcd's kubectl would, and the lab pins all of kamaji-etcd's
	// images (kamajietcd.go).
	s.add(Image{Ref: etcdServer.Ref(), Stage: StageKamaji, Place: Management, Source: srcKamajiEtcd,
		PullPolicy: "IfNotPresent", Release: ReleaseKamaji})
	s.add(Image{Ref: etcdJobs.Ref(), Stage: StageKamaji, Place: Management, Source: srcEtcdJobs,
		PullPolicy: "IfNotPresent", Release: ReleaseKamaji})
	s.add(Image{Ref: etcdKubectl.Ref(), Stage: StageKamaji, Place: Management, Source: srcEtcdKubectl,
		PullPolicy: "IfNotPresent", Release: ReleaseKamaji})
	return nil
}

// listTenants: each tenant's control plane, on the management node.
func listTenants(s *listing, l *lab.Lab, opts render.Options) error {
	bundlePolicy := string(render.BundlePullPolicy)
	for _, t := range l.Tenants {
		tcp, err := render.TenantControlPlaneFor(l, t.Name, opts)
		if err != nil {
			return err
		}
		v := tcp.Spec.Kubernetes.Version
		s.add(Image{Ref: kamajiRegistry + "/kube-apiserver:" + v, Stage: StageTenants, Place: Management,
			Source: srcKamajiCP, PullPolicy: "Always", BundlePullPolicy: bundlePolicy})
		s.add(Image{Ref: kamajiRegistry + "/kube-controller-manager:" + v, Stage: StageTenants, Place: Management,
			Source: srcKamajiCP, PullPolicy: "IfNotPresent"})
		s.add(Image{Ref: kamajiRegistry + "/kube-scheduler:" + v, Stage: StageTenants, Place: Management,
			Source: srcKamajiCP, PullPolicy: "IfNotPresent"})
		if k := tcp.Spec.Addons.Konnectivity; k != nil {
			s.add(Image{Ref: konnServerImage + ":" + k.Server.Version, Stage: StageTenants, Place: Management,
				Source: srcKonnServer, PullPolicy: "Always", BundlePullPolicy: bundlePolicy})
		}
	}
	return nil
}

// listWorkers: the worker node image and what each tenant's workers run
// before HAMi.
func listWorkers(s *listing, l *lab.Lab, opts render.Options) error {
	worker := l.Versions.WorkerImage()
	s.add(Image{Ref: worker, Stage: StageWorkers, Place: OnDaemon, Source: srcWorkerImages})
	// A worker runs only the sandbox image and kindnetd (kind's CNI manifest
	// from the worker image itself, ci/stages kindnet.go) of what its node
	// image holds; kube-proxy and kube-scheduler follow from ci/render.
	s.add(Image{Ref: pauseImage, Stage: StageWorkers, Place: Worker, Source: srcPause, Preloaded: worker})
	s.add(Image{Ref: kindnetdImage, Stage: StageWorkers, Place: Worker, Source: srcKindnetd, Preloaded: worker, PullPolicy: "IfNotPresent"})
	for _, t := range l.Tenants {
		_, ds, err := render.KubeProxy(l, t.Name, opts)
		if err != nil {
			return err
		}
		for _, c := range ds.Spec.Template.Spec.Containers {
			i := Image{Ref: c.Image, Stage: StageWorkers, Place: Worker, Source: srcKubeProxy, PullPolicy: string(c.ImagePullPolicy)}
			if containsRef(nodePreloads(l.Versions.Kubernetes), c.Image) {
				i.Preloaded = worker
			}
			s.add(i)
		}
		tcp, err := render.TenantControlPlaneFor(l, t.Name, opts)
		if err != nil {
			return err
		}
		if tcp.Spec.Addons.CoreDNS != nil {
			// Kamaji's CoreDNS comes from the kubeadm it vendors, not from the
			// tenant version's kubeadm, so it is bundled even when the worker
			// image may hold the same one.
			s.add(Image{Ref: kamajiRegistry + "/coredns/coredns:" + kubeadmCoreDNSTag, Stage: StageWorkers, Place: Worker,
				Source: srcCoreDNS, PullPolicy: "IfNotPresent"})
		}
		if k := tcp.Spec.Addons.Konnectivity; k != nil {
			s.add(Image{Ref: konnAgentImage + ":" + k.Agent.Version, Stage: StageWorkers, Place: Worker,
				Source: srcKonnAgent, PullPolicy: "IfNotPresent"})
		}
	}
	return nil
}

// listHAMi: HAMi's images from each tenant's values, its certgen job and
// the mock NVML library the hami stage installs on every worker before the
// chart (HAMi's device plugin reads the cards through it).
func listHAMi(s *listing, l *lab.Lab, _ render.Options) error {
	worker := l.Versions.WorkerImage()
	for _, t := range l.Tenants {
		hv, err := render.HAMiValuesFor(l, t.Name)
		if err != nil {
			return err
		}
		for _, ref := range hamiImages(hv) {
			i := Image{Ref: ref, Stage: StageHAMi, Place: Worker, Source: srcHAMi, PullPolicy: "IfNotPresent"}
			if containsRef(nodePreloads(l.Versions.Kubernetes), ref) {
				i.Preloaded = worker
			}
			s.add(i)
		}
	}
	s.add(Image{Ref: "docker.io/liangjw/kube-webhook-certgen:v1.1.1", Stage: StageHAMi, Place: Worker, Source: srcCertgen,
		PullPolicy: "IfNotPresent"})
	s.add(Image{Ref: render.NVMLMockImage, Stage: StageHAMi, Place: Worker, Source: srcNVMLMock, PullPolicy: "IfNotPresent"})
	return nil
}

// hamiImages are the images chart hami 2.10.0 renders from the lab's values
// (templates/_helpers.tpl: registry/repository:tag; chart defaults
// docker.io/projecthami/hami and docker.io/projecthami/mock-device-plugin).
func hamiImages(v *render.HAMiValues) []string {
	ks := v.Scheduler.KubeScheduler.Image
	out := []string{
		"docker.io/projecthami/hami:" + v.Global.ImageTag,
		ks.Registry + "/" + ks.Repository + ":" + ks.Tag,
	}
	if v.MockDevicePlugin.Enabled {
		out = append(out, "docker.io/projecthami/mock-device-plugin:"+v.MockDevicePlugin.Image.Tag)
	}
	return out
}

// nodePreloads lists what a kindest/node image of Kubernetes version holds:
// kubeadm's images for the version (k8s.io/kubernetes cmd/kubeadm/app/images
// GetControlPlaneImages: registry.k8s.io/<component>:<version>, CoreDNS and
// etcd of that kubeadm — left out here because their tags depend on the
// kubeadm patch release), the sandbox image, kindnetd and local-path.
func nodePreloads(version string) []string {
	var out []string
	for _, c := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kube-proxy"} {
		out = append(out, kamajiRegistry+"/"+c+":"+version)
	}
	return append(out, pauseImage, kindnetdImage, localPathImage, localPathHelper)
}

// nodeVersion is the Kubernetes version of a kindest/node reference.
func nodeVersion(ref string) string {
	ref, _, _ = strings.Cut(ref, "@")
	if i := strings.LastIndex(ref, ":"); i >= 0 && !strings.Contains(ref[i:], "/") {
		return ref[i+1:]
	}
	return ""
}

// containsRef reports whether list holds ref, however either is spelt.
func containsRef(list []string, ref string) bool {
	for _, s := range list {
		if Normalize(s) == Normalize(ref) {
			return true
		}
	}
	return false
}

// Normalize spells a reference the way Docker and containerd resolve it
// (docker.Normalize); a string that is no reference is returned as it is.
func Normalize(ref string) string { return docker.Normalize(ref) }

// Sorted returns the images sorted by stage order, place and reference.
func Sorted(list []Image) []Image {
	order := map[string]int{StageCluster: 0, StageKamaji: 1, StageTenants: 2, StageWorkers: 3, StageHAMi: 4, StageGPUs: 5}
	out := append([]Image(nil), list...)
	sort.SliceStable(out, func(i, j int) bool {
		if order[out[i].Stage] != order[out[j].Stage] {
			return order[out[i].Stage] < order[out[j].Stage]
		}
		if out[i].Place != out[j].Place {
			return out[i].Place < out[j].Place
		}
		return out[i].Ref < out[j].Ref
	})
	return out
}
