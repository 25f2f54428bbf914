package registry

import "github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gobuild"

// version is the registry built: the one moby v29.7.2's own tests run
// (moby@docker-v29.7.2 Dockerfile:31 REGISTRY_VERSION=3.1.1).
const version = "v3.1.1"

const module = "github.com/distribution/distribution/v3"

// Program is cmd/registry as distribution's Makefile builds it: -s -w and
// the version -X flags (distribution@v3.1.1 Makefile:40); static, as the
// rehearsal's other programs.
func Program() gobuild.Program {
	return gobuild.Program{
		Name: "registry-" + version, Module: module, Version: version,
		Packages:    []string{module + "/cmd/registry"},
		LDFlags:     "-s -w -X " + module + "/version.version=" + version + " -X " + module + "/version.mainpkg=" + module,
		Trimpath:    true,
		GoDirective: "1.25.0",
	}
}
