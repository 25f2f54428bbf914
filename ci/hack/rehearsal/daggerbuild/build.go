package daggerbuild

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gobuild"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/rootfs"
)

// Options are what Build needs.
type Options struct {
	Log       *slog.Logger
	Layout    Layout
	Snapshots Snapshots
	// ModuleDir is the gpu-lab Dagger module (.dagger) whose go.mod the
	// Go proxy tree serves.
	ModuleDir string
	Docker    imagespec.Docker
}

// Result is where Build left what it made.
type Result struct {
	CLI         string // the dagger binary
	EngineImage string // docker-archive of EngineImageRef
	GoProxy     string // GOPROXY file tree for the module's build
}

// link points at (a stable path) to target, replacing an older link.
func link(target, at string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
		return "", err
	}
	tmp := at + ".new"
	_ = os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		return "", fmt.Errorf("link %s: %w", at, err)
	}
	if err := os.Rename(tmp, at); err != nil {
		return "", fmt.Errorf("link %s: %w", at, err)
	}
	return at, nil
}

// Build builds the CLI, the engine image and the module's Go proxy tree,
// the independent steps side by side (each logs its progress).
func Build(ctx context.Context, o Options) (Result, error) {
	tree, err := Source(ctx, o.Log, o.Layout, o.Snapshots)
	if err != nil {
		return Result{}, err
	}
	proxy, err := RefusedProxy(ctx, o.Log, o.Layout, o.Snapshots, tree)
	if err != nil {
		return Result{}, err
	}
	var r Result
	p, err := buildParts(ctx, o, tree, proxy, &r)
	if err != nil {
		return r, err
	}
	layout, digest, err := GoSDKLayout(ctx, o, p.sdkFS, filepath.Join(p.engineBin, "codegen"))
	if err != nil {
		return r, err
	}
	base, err := rootfs.Import(ctx, o.Docker, o.Log, EngineRootfs, p.engineFS)
	if err != nil {
		return r, err
	}
	spec, err := EngineSpec(EngineSpecInputs{
		Base: base, EngineBin: p.engineBin, CNIBin: p.cniBin, Runc: filepath.Join(p.runcBin, "runc"), CLI: r.CLI,
		SDKLayout: layout, SDKManifestDigest: digest,
	})
	if err != nil {
		return r, err
	}
	work := filepath.Join(o.Layout.Root, "image", "context")
	if _, err := imagespec.Build(ctx, o.Docker, o.Log, spec, work, filepath.Join(o.Layout.Root, "image", "build.log")); err != nil {
		return r, err
	}
	r.EngineImage, err = SaveImage(ctx, o, spec.Ref)
	return r, err
}

// parts are what Build makes the engine image of: the engine's, the CNI
// plugins' and runc's programs, the engine's and the Go SDK runtime's root
// file systems.
type parts struct {
	engineBin, cniBin, runcBin, engineFS, sdkFS string
}

// buildParts builds the CLI and the module's Go proxy tree (into r) and
// the engine image's parts, the independent steps side by side.
func buildParts(ctx context.Context, o Options, tree, proxy string, r *Result) (parts, error) {
	rootRoot := filepath.Dir(o.Layout.Root) // the rehearsal cache: root file systems and .debs are shared
	var p parts
	steps := []func() error{
		func() (err error) {
			var bin string
			if bin, err = gobuild.Build(ctx, o.Log, o.Layout.Root, CLIProgram(tree, proxy), "about 3–6 min on 2 cores"); err == nil {
				r.CLI, err = link(filepath.Join(bin, "dagger"), o.Layout.CLI())
			}
			return err
		},
		func() (err error) {
			p.engineBin, err = gobuild.Build(ctx, o.Log, o.Layout.Root, EngineProgram(tree, proxy), "about 10–20 min on 2 busy cores")
			return err
		},
		func() (err error) {
			p.cniBin, err = gobuild.Build(ctx, o.Log, o.Layout.Root, CNIProgram(), "a few minutes")
			return err
		},
		func() (err error) {
			p.runcBin, err = gobuild.Build(ctx, o.Log, o.Layout.Root, RuncProgram(), "a few minutes")
			return err
		},
		// one after the other: a debootstrap sharing the .deb cache
		// directory with another running one can stop silently midway
		func() (err error) {
			if p.engineFS, err = rootfs.Make(ctx, o.Log, rootRoot, EngineRootfs); err == nil {
				p.sdkFS, err = rootfs.Make(ctx, o.Log, rootRoot, GoSDKRootfs)
			}
			return err
		},
		func() (err error) { r.GoProxy, err = ModuleProxy(ctx, o); return err },
	}
	err := parallel(steps)
	return p, err
}

// parallel runs steps side by side and returns their errors joined.
func parallel(steps []func() error) error {
	errs := make([]error, len(steps))
	var wg sync.WaitGroup
	for i, step := range steps {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = step() }()
	}
	wg.Wait()
	return errors.Join(errs...)
}
