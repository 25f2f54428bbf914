package daggerbuild

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/cache"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/rootfs"
)

// EngineRootfs is the engine image's userland: Debian's packages for
// what upstream installs from Wolfi (toolchains/engine-dev/build/
// builder.go Engine @v0.21.8): ca-certificates, mount/umount, coreutils
// and libc's utilities, git, openssh-client, pigz, xz, nftables,
// iptables (Debian's carries the legacy variant), dnsmasq, e2fsprogs,
// ripgrep, sqlite; plus tini (upstream downloads its release binary) and
// libseccomp2 (the runc built here links it dynamically). isa-l has no
// Debian binary package with igzip; pigz serves instead.
var EngineRootfs = rootfs.Spec{
	Name: "dagger-engine", Suite: "bookworm", Variant: "minbase",
	Include: []string{
		"ca-certificates", "mount", "libc-bin", "git", "openssh-client", "pigz", "xz-utils",
		"nftables", "iptables", "dnsmasq-base", "e2fsprogs", "ripgrep", "sqlite3", "tini", "libseccomp2",
	},
}

// GoSDKRootfs is the Go SDK runtime's userland besides Go itself:
// upstream adds git, openssh and openssl to golang:1.26-alpine
// (toolchains/engine-dev/build/sdk.go goSDKContent @v0.21.8).
var GoSDKRootfs = rootfs.Spec{
	Name: "dagger-go-sdk", Suite: "bookworm", Variant: "minbase",
	Include: []string{"ca-certificates", "git", "openssh-client", "openssl"},
}

// engineBinaries are the Go programs of the image: built file → path in
// the image (toolchains/engine-dev/build/builder.go Engine and
// toolchains/engine-dev/consts @v0.21.8).
var engineBinaries = map[string]string{
	"dagger-engine": "/usr/local/bin/dagger-engine",
	"dial-stdio":    "/usr/bin/dial-stdio",
	"dnsname":       "/opt/cni/bin/dnsname",
	"dagger-init":   "/usr/local/bin/dagger-init",
}

// EngineSpecInputs are the built parts of the engine image.
type EngineSpecInputs struct {
	Base              string // the imported EngineRootfs
	EngineBin, CNIBin string // directories of EngineProgram's and CNIProgram's binaries
	Runc, CLI         string
	SDKLayout         string // the Go SDK's OCI layout
	SDKManifestDigest string
}

// EngineSpec is the engine image: the binaries where upstream puts them,
// the Go SDK's blobs in the engine's built-in content store, its manifest
// digest in DAGGER_GO_SDK_MANIFEST_DIGEST (engine/distconsts/consts.go,
// read by core/sdk/go_sdk.go:767 @v0.21.8), an empty engine.json and
// engine.toml (engine up mounts the real ones) and the entrypoint
// `tini -- dagger-engine --config /etc/dagger/engine.toml` (upstream's
// entrypoint script ends with it: toolchains/engine-dev/config.go).
func EngineSpec(in EngineSpecInputs) (imagespec.Spec, error) {
	s := imagespec.Spec{
		Ref: EngineImageRef, Base: in.Base,
		Source:     "github.com/dagger/dagger@" + Version + " (git " + DaggerPin.Commit[:12] + ")",
		Entrypoint: []string{"tini", "--", "dagger-engine", "--config", "/etc/dagger/engine.toml"},
		Env:        []string{"DAGGER_GO_SDK_MANIFEST_DIGEST=" + in.SDKManifestDigest},
		Run: []string{
			"ln -s /usr/bin/tini-static /usr/local/bin/tini",
			// the engine links iptables to /usr/bin/xtables-{legacy,nft}-multi,
			// Wolfi's paths (network/netinst/iptables.go:13,53-54 @v0.21.8);
			// Debian keeps them in /usr/sbin
			"ln -s /usr/sbin/xtables-legacy-multi /usr/sbin/xtables-nft-multi /usr/bin/",
			"ln -s /usr/bin/dial-stdio /usr/bin/buildctl",
			"mkdir -p /var/lib/dagger",
		},
	}
	for _, name := range slices.Sorted(maps.Keys(engineBinaries)) {
		s.Files = append(s.Files, imagespec.File{Dest: engineBinaries[name], Mode: 0o755, Src: filepath.Join(in.EngineBin, name)})
	}
	for _, p := range CNIPlugins {
		name := filepath.Base(p)
		s.Files = append(s.Files, imagespec.File{Dest: "/opt/cni/bin/" + name, Mode: 0o755, Src: filepath.Join(in.CNIBin, name)})
	}
	s.Files = append(s.Files,
		imagespec.File{Dest: "/usr/local/bin/runc", Mode: 0o755, Src: in.Runc},
		imagespec.File{Dest: "/usr/local/bin/dagger", Mode: 0o755, Src: in.CLI},
		imagespec.File{Dest: "/etc/dagger/engine.json", Mode: 0o644, Data: []byte("{}\n")},
		imagespec.File{Dest: "/etc/dagger/engine.toml", Mode: 0o644, Data: []byte{}},
	)
	blobs, err := os.ReadDir(filepath.Join(in.SDKLayout, "blobs", "sha256"))
	if err != nil {
		return imagespec.Spec{}, fmt.Errorf("engine image: the Go SDK's layout: %w", err)
	}
	for _, b := range blobs {
		s.Files = append(s.Files, imagespec.File{
			Dest: "/usr/local/share/dagger/content/blobs/sha256/" + b.Name(), Mode: 0o644,
			Src: filepath.Join(in.SDKLayout, "blobs", "sha256", b.Name()),
		})
	}
	return s, nil
}

// SaveImage writes ref as a docker-archive (`docker save`) into a cache
// entry keyed by the image's ID, and returns the archive's path.
func SaveImage(ctx context.Context, o Options, ref string) (string, error) {
	id, err := o.Docker.ImageID(ctx, ref)
	if err != nil {
		return "", fmt.Errorf("engine image %s: %w", ref, err)
	}
	dir := filepath.Join(o.Layout.Root, "image", "engine-"+Version+"-"+cache.Key(id))
	err = cache.Fill(ctx, o.Log, "engine image archive", dir, func(partial, logPath string) error {
		out, err := o.Docker.Run(ctx, "save", "-o", filepath.Join(partial, "engine.tar"), ref)
		if err != nil {
			return fmt.Errorf("docker save %s: %w: %s", ref, err, out)
		}
		return os.WriteFile(filepath.Join(partial, "image-id"), []byte(id+"\n"), 0o644)
	})
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "engine.tar"), nil
}

// GoSDKLayout makes the Go SDK runtime's OCI layout once: GoSDKRootfs as
// one layer, this machine's Go toolchain at /usr/local/go and codegen at
// /usr/local/bin/codegen as another, configured as upstream's golang base
// (PATH, GOPATH=/go, working directory /go, GOTOOLCHAIN=auto) plus
// GONOSUMDB for dagger.io/dagger (an adaptation: adaptations.go). It
// returns the layout's directory and manifest digest. Upstream also warms
// the module and build caches; this image starts them empty.
func GoSDKLayout(ctx context.Context, o Options, sdkFS, codegen string) (string, string, error) {
	goroot, err := goEnv(ctx, "GOROOT")
	if err != nil {
		return "", "", err
	}
	goVersion, err := goEnv(ctx, "GOVERSION")
	if err != nil {
		return "", "", err
	}
	sum, err := fileKey(codegen)
	if err != nil {
		return "", "", err
	}
	cfg := GoSDKConfig(goVersion)
	parts := append([]string{GoSDKRootfs.Key(), goVersion, sum}, cfg.Env...)
	dir := filepath.Join(o.Layout.Root, "sdk", "go-"+cache.Key(append(parts, goSDKDirs...)...))
	err = cache.Fill(ctx, o.Log, "Go SDK runtime layout", dir, func(partial, logPath string) error {
		stage := filepath.Join(partial, "stage")
		for _, d := range goSDKDirs {
			if err := os.MkdirAll(filepath.Join(stage, d), 0o755); err != nil {
				return err
			}
		}
		if err := os.Chmod(filepath.Join(stage, "root"), 0o700); err != nil { // as the root file system has it
			return err
		}
		if out, err := exec.CommandContext(ctx, "cp", "-a", goroot, filepath.Join(stage, "usr/local/go")).CombinedOutput(); err != nil {
			return fmt.Errorf("copy the Go toolchain %s: %w: %s", goroot, err, out)
		}
		if out, err := exec.CommandContext(ctx, "cp", codegen, filepath.Join(stage, "usr/local/bin/codegen")).CombinedOutput(); err != nil {
			return fmt.Errorf("copy codegen: %w: %s", err, out)
		}
		digest, err := WriteLayout(ctx, filepath.Join(partial, "layout"), []string{sdkFS, stage}, cfg)
		if err != nil {
			return err
		}
		if err := os.RemoveAll(stage); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(partial, "manifest-digest"), []byte(digest+"\n"), 0o644)
	})
	if err != nil {
		return "", "", fmt.Errorf("Go SDK runtime: %w", err)
	}
	d, err := os.ReadFile(filepath.Join(dir, "manifest-digest"))
	if err != nil {
		return "", "", err
	}
	return filepath.Join(dir, "layout"), strings.TrimSpace(string(d)), nil
}

// goSDKDirs are the directories the Go SDK runtime must hold besides its
// root file system and Go: GOPATH's, and the module and build caches the
// engine seeds its cache volumes from (core/sdk/go_sdk.go:785,815
// @v0.21.8: without /go/pkg/mod loading a module fails "evaluate cache
// source directory: stat /go/pkg/mod: no such file or directory").
var goSDKDirs = []string{"usr/local/bin", "go/bin", "go/src", "go/pkg/mod", "root/.cache/go-build"}

// GoSDKConfig is the Go SDK image's config: the golang image's
// environment with upstream's GOTOOLCHAIN=auto, and GONOSUMDB for the
// one module the rehearsal's Go proxy serves that no checksum database
// answers for here.
func GoSDKConfig(goVersion string) ImageConfig {
	return ImageConfig{
		WorkingDir: "/go",
		Env: []string{
			"PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			"GOLANG_VERSION=" + strings.TrimPrefix(goVersion, "go"),
			"GOPATH=/go",
			"GOTOOLCHAIN=auto",
			"GONOSUMDB=" + GoSDKModule.Path,
		},
	}
}

func fileKey(path string) (string, error) {
	f := imagespec.File{Src: path}
	s := imagespec.Spec{Files: []imagespec.File{f}}
	return s.Key("")
}

func goEnv(ctx context.Context, name string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}
