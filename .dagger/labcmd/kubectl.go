package labcmd

import (
	"fmt"
	"sort"
	"strings"
)

// KubectlVersion is the kubectl the terminal gets: the default tenant
// Kubernetes version (ci/lab.DefaultVersions; a test keeps them equal).
const KubectlVersion = "v1.36.4"

// kubectlSHA256 is the sha256 the Kubernetes release publishes beside each
// kubectl binary (dl.k8s.io/release/v1.36.4/bin/linux/<arch>/kubectl.sha256),
// per architecture the terminal runs on. That file cannot be fetched from
// where this module is built; both values were taken from public
// repositories that pin kubectl v1.36.4 by checksum (install scripts,
// Dockerfiles, version files — over ten independent ones agree on each,
// one of them noting it was checked against the kubectl.sha256 above). A
// new KubectlVersion needs new values, and a test fails until they are set.
var kubectlSHA256 = map[string]string{
	"amd64": "8b8f088da2dab964f853b38464033b1be15ede2839eca751482357c45abdd05a",
	"arm64": "0ecf44450ee6063bf19dd166a103ee6df4a9034455c2abce626e6eea657d73fb",
}

// kubectlSHA256Version is the KubectlVersion kubectlSHA256 belongs to.
const kubectlSHA256Version = "v1.36.4"

// KubectlRelease is the official kubectl release binary for an OCI platform
// such as "linux/amd64" or "linux/arm64/v8", and the digest the download
// must have ("sha256:<hex>", the form Dagger's HTTP checksum takes).
func KubectlRelease(platform string) (url, checksum string, err error) {
	parts := strings.Split(platform, "/")
	if len(parts) < 2 || parts[0] != "linux" || parts[1] == "" {
		return "", "", fmt.Errorf("platform %q: want linux/<arch>, e.g. linux/amd64", platform)
	}
	arch := parts[1]
	sum, ok := kubectlSHA256[arch]
	if !ok || kubectlSHA256Version != KubectlVersion {
		return "", "", fmt.Errorf("kubectl %s for %s: no pinned sha256 (pinned: %s for %s); "+
			"add the release's kubectl.sha256 to kubectlSHA256 in .dagger/labcmd/kubectl.go",
			KubectlVersion, platform, strings.Join(pinnedArches(), ", "), kubectlSHA256Version)
	}
	return fmt.Sprintf("https://dl.k8s.io/release/%s/bin/linux/%s/kubectl", KubectlVersion, arch), "sha256:" + sum, nil
}

func pinnedArches() []string {
	out := make([]string, 0, len(kubectlSHA256))
	for a := range kubectlSHA256 {
		out = append(out, "linux/"+a)
	}
	sort.Strings(out)
	return out
}
