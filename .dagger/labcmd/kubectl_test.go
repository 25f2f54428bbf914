package labcmd

import (
	"regexp"
	"strings"
	"testing"
)

// KubectlRelease names the release binary of the pinned version for the
// engine's architecture with its pinned sha256, and refuses a platform it
// has no checksum for instead of downloading unchecked.
func TestKubectlRelease(t *testing.T) {
	tests := []struct {
		platform, url, sum, err string
	}{
		{"linux/amd64", "https://dl.k8s.io/release/" + KubectlVersion + "/bin/linux/amd64/kubectl", "sha256:" + kubectlSHA256["amd64"], ""},
		{"linux/arm64/v8", "https://dl.k8s.io/release/" + KubectlVersion + "/bin/linux/arm64/kubectl", "sha256:" + kubectlSHA256["arm64"], ""},
		{"linux/s390x", "", "", "no pinned sha256"},
		{"darwin/arm64", "", "", "want linux/<arch>"},
		{"linux", "", "", "want linux/<arch>"},
	}
	for _, tt := range tests {
		url, sum, err := KubectlRelease(tt.platform)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || url != "" || sum != "" {
				t.Errorf("KubectlRelease(%q) = %q, %q, %v; want an error containing %q", tt.platform, url, sum, err, tt.err)
			}
			continue
		}
		if err != nil || url != tt.url || sum != tt.sum {
			t.Errorf("KubectlRelease(%q) = %q, %q, %v; want %q, %q", tt.platform, url, sum, err, tt.url, tt.sum)
		}
	}
}

// Every pinned checksum is a sha256 in hex, and belongs to the version
// the terminal downloads: moving KubectlVersion without new checksums
// fails here (and KubectlRelease refuses) rather than at download time.
func TestKubectlChecksumsPinned(t *testing.T) {
	hex64 := regexp.MustCompile(`^[0-9a-f]{64}$`)
	for arch, sum := range kubectlSHA256 {
		if !hex64.MatchString(sum) {
			t.Errorf("kubectl sha256 for %s is %q, not 64 hex digits", arch, sum)
		}
	}
	if kubectlSHA256Version != KubectlVersion {
		t.Errorf("the kubectl checksums are for %s, the terminal downloads %s", kubectlSHA256Version, KubectlVersion)
	}
	for _, arch := range []string{"amd64", "arm64"} {
		if _, ok := kubectlSHA256[arch]; !ok {
			t.Errorf("no kubectl checksum for linux/%s, where Dagger engines run", arch)
		}
	}
}
