// Package components describes the small images the lab runs besides the
// node images — the Kubernetes server images, pause, etcd, CoreDNS,
// kindnetd, local-path — as a base plus the binaries built from source,
// laid out as their upstream images lay them out (cited per image).
package components

import (
	"path/filepath"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/rootfs"
)

// IptablesRootFS stands in for registry.k8s.io/build-image/distroless-
// iptables (k8s.io/kubernetes v1.37.0 build/common.sh:80,88, the base of
// kube-proxy and of every dynamically linked server image; kindnetd's base
// too, kind images/kindnetd/Dockerfile at 69b56db7): a Debian bookworm
// minbase with the iptables, nftables and conntrack tools.
var IptablesRootFS = rootfs.Spec{
	Name:    "iptables",
	Suite:   "bookworm",
	Variant: "minbase",
	Include: []string{"iptables", "nftables", "conntrack", "ca-certificates", "ebtables", "kmod"},
}

// StaticBaseRef names the image standing in for the distroless static base
// (go-runner, build/common.sh:81,95; CoreDNS's and local-path's
// gcr.io/distroless/static): users, groups and CA certificates, nothing to
// run.
const StaticBaseRef = "gpu-lab-rehearsal/static-base"

// Passwd and Group are distroless static's users: root, nobody (65534) and
// nonroot (65532).
const (
	passwd = "root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
		"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	group = "root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n"
)

// StaticBase is the static base image: FROM scratch, with the CA bundle of
// the iptables root file system fs.
func StaticBase(fs string) imagespec.Spec {
	return imagespec.Spec{
		Ref:  StaticBaseRef,
		Base: "scratch",
		Files: []imagespec.File{
			{Dest: "/etc/passwd", Mode: 0o644, Data: []byte(passwd)},
			{Dest: "/etc/group", Mode: 0o644, Data: []byte(group)},
			{Dest: "/etc/nsswitch.conf", Mode: 0o644, Data: []byte("hosts: files dns\n")},
			{Dest: "/etc/ssl/certs/ca-certificates.crt", Mode: 0o644, Src: filepath.Join(fs, "etc", "ssl", "certs", "ca-certificates.crt")},
		},
		Env:    []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
		Source: "stand-in for distroless static",
	}
}

// ServerImage is registry.k8s.io/<binary>:<version> as upstream builds it
// (build/server-image/Dockerfile:21-25 at v1.37.0: the binary in
// /usr/local/bin, kube-log-runner as /go-runner, the entrypoint). base is
// the static base, or the iptables base for kube-proxy (build/common.sh:112).
func ServerImage(binary, version, binDir, base string) imagespec.Spec {
	return imagespec.Spec{
		Ref:  "registry.k8s.io/" + binary + ":" + version,
		Base: base,
		Files: []imagespec.File{
			{Dest: "/usr/local/bin/" + binary, Mode: 0o755, Src: filepath.Join(binDir, binary)},
			{Dest: "/go-runner", Mode: 0o755, Src: filepath.Join(binDir, "kube-log-runner")},
		},
		Entrypoint: []string{"/go-runner"},
		Source:     "k8s.io/kubernetes@" + version + " cmd/" + binary,
	}
}

// Pause is the sandbox image (build/pause/Dockerfile at v1.37.0: FROM
// scratch, /pause, user 65535, entrypoint /pause).
func Pause(tag, binary string) imagespec.Spec {
	return imagespec.Spec{
		Ref:        "registry.k8s.io/pause:" + tag,
		Base:       "scratch",
		Files:      []imagespec.File{{Dest: "/pause", Mode: 0o755, Src: binary}},
		User:       "65535:65535",
		Entrypoint: []string{"/pause"},
		Source:     "k8s.io/kubernetes build/pause/linux/pause.c",
	}
}

// Etcd is registry.k8s.io/etcd:<tag>: etcd, etcdctl and etcdutl in
// /usr/local/bin, where kubeadm's static pod finds `etcd`
// (cmd/kubeadm/app/phases/etcd/local.go runs the command "etcd").
func Etcd(tag, version, binDir string) imagespec.Spec {
	var files []imagespec.File
	for _, b := range []string{"etcd", "etcdctl", "etcdutl"} {
		files = append(files, imagespec.File{Dest: "/usr/local/bin/" + b, Mode: 0o755, Src: filepath.Join(binDir, b)})
	}
	return imagespec.Spec{
		Ref:    "registry.k8s.io/etcd:" + tag,
		Base:   StaticBaseRef,
		Files:  files,
		Source: "go.etcd.io/etcd server, etcdctl, etcdutl @" + version,
	}
}

// CoreDNS is registry.k8s.io/coredns/coredns:<version>: /coredns as the
// entrypoint (coredns Dockerfile: FROM distroless static, COPY coredns
// /coredns, ENTRYPOINT ["/coredns"]; kubeadm's Deployment passes only args).
func CoreDNS(version, binDir string) imagespec.Spec {
	return imagespec.Spec{
		Ref:        "registry.k8s.io/coredns/coredns:" + version,
		Base:       StaticBaseRef,
		Files:      []imagespec.File{{Dest: "/coredns", Mode: 0o755, Src: filepath.Join(binDir, "coredns")}},
		Entrypoint: []string{"/coredns"},
		Source:     "github.com/coredns/coredns@" + version,
	}
}

// Kindnetd is docker.io/kindest/kindnetd:<tag> (kind images/kindnetd/
// Dockerfile at 69b56db7: FROM distroless-iptables, /bin/kindnetd, CMD).
func Kindnetd(ref, source, binary, iptablesBase string) imagespec.Spec {
	return imagespec.Spec{
		Ref:    ref,
		Base:   iptablesBase,
		Files:  []imagespec.File{{Dest: "/bin/kindnetd", Mode: 0o755, Src: binary}},
		Cmd:    []string{"/bin/kindnetd"},
		Source: source,
	}
}

// LocalPathProvisioner is docker.io/kindest/local-path-provisioner:<tag>
// (kind images/local-path-provisioner/Dockerfile at 69b56db7: FROM
// distroless static, /usr/local/bin/local-path-provisioner as entrypoint).
func LocalPathProvisioner(ref, source, binary string) imagespec.Spec {
	return imagespec.Spec{
		Ref:        ref,
		Base:       StaticBaseRef,
		Files:      []imagespec.File{{Dest: "/usr/local/bin/local-path-provisioner", Mode: 0o755, Src: binary}},
		Entrypoint: []string{"/usr/local/bin/local-path-provisioner"},
		Source:     source,
	}
}

// LocalPathHelper is docker.io/kindest/local-path-helper:<tag>: kind's
// holds only sh (bash), rm and mkdir with their libraries (images/local-
// path-helper/Dockerfile at 7181c60a); the iptables base has those (and
// more) from Debian's packages.
func LocalPathHelper(ref, iptablesBase string) imagespec.Spec {
	return imagespec.Spec{
		Ref:    ref,
		Base:   iptablesBase,
		Source: "Debian bookworm bash and coreutils (stand-in for kind images/local-path-helper)",
	}
}

// Konnectivity is registry.k8s.io/kas-network-proxy/proxy-<role>:<version>
// (apiserver-network-proxy v0.36.0 artifacts/images/server-build.
// Dockerfile: FROM distroless static, /proxy-server, ENTRYPOINT; the agent's
// likewise).
func Konnectivity(role, version, binDir string) imagespec.Spec {
	bin := "proxy-" + role
	return imagespec.Spec{
		Ref:        "registry.k8s.io/kas-network-proxy/" + bin + ":" + version,
		Base:       StaticBaseRef,
		Files:      []imagespec.File{{Dest: "/" + bin, Mode: 0o755, Src: filepath.Join(binDir, bin)}},
		Entrypoint: []string{"/" + bin},
		Source:     "sigs.k8s.io/apiserver-network-proxy@" + version + " cmd/" + role,
	}
}
