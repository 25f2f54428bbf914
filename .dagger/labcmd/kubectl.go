package labcmd

import (
	"fmt"
	"strings"
)

// KubectlVersion is the kubectl the terminal gets: the default tenant
// Kubernetes version (ci/lab.DefaultVersions; a test keeps them equal).
const KubectlVersion = "v1.36.4"

// KubectlURL is the official kubectl release binary for an OCI platform
// such as "linux/amd64" or "linux/arm64/v8".
func KubectlURL(platform string) (string, error) {
	parts := strings.Split(platform, "/")
	if len(parts) < 2 || parts[0] != "linux" || parts[1] == "" {
		return "", fmt.Errorf("platform %q: want linux/<arch>, e.g. linux/amd64", platform)
	}
	return fmt.Sprintf("https://dl.k8s.io/release/%s/bin/linux/%s/kubectl", KubectlVersion, parts[1]), nil
}
