package daggerbuild

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/mod/module"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/cache"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gobuild"
	"github.com/gpu-lab/gpu-lab/ci/internal/helm"
	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

// ModuleProxy makes, once per go.mod/go.sum content, the GOPROXY file
// tree the gpu-lab Dagger module's build needs inside the rehearsal's
// network namespace, and returns its directory. It holds dagger.io/dagger
// at the commit the engine's Go SDK asks for (GoSDKModule, zipped from its
// snapshot and also answering the `go get dagger.io/dagger@<commit>`
// query by that commit), and every module a fresh module cache fetched
// while doing what the Go SDK's codegen does in a copy of the module
// (`go get dagger.io/dagger@<commit>`, `go mod tidy`:
// cmd/codegen/generator/go/generate_module.go:250-262 @v0.21.8) and
// while downloading the repository's own modules (`go mod download all`
// in each of RepoModules), and every module the module's
// `go install helm.sh/helm/v3/cmd/helm@VERSION` loads (Lab.Helm: helm is
// not a dependency of the repository's go.mod). The module cache's
// download directory is in the GOPROXY layout already.
func ModuleProxy(ctx context.Context, o Options) (string, error) {
	modDir, err := filepath.Abs(o.ModuleDir)
	if err != nil {
		return "", err
	}
	repoDir := filepath.Dir(modDir)
	key, err := moduleProxyKey(modDir, repoDir)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(o.Layout.Root, "proxy", "module-"+key)
	err = cache.Fill(ctx, o.Log, "Go proxy tree of the Dagger module", dir, func(partial, logPath string) error {
		return fillModuleProxy(ctx, o, modDir, repoDir, partial, logPath)
	})
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "goproxy"), nil
}

// moduleProxyKey is the cache key of the module's Go proxy tree: the
// go.mod and go.sum of the module and of every RepoModules, and what else
// goes into the tree (the Go SDK's module, helm's).
func moduleProxyKey(modDir, repoDir string) (string, error) {
	var parts []string
	files := []string{filepath.Join(modDir, "go.mod"), filepath.Join(modDir, "go.sum")}
	for _, m := range RepoModules {
		files = append(files, filepath.Join(repoDir, m, "go.mod"), filepath.Join(repoDir, m, "go.sum"))
	}
	for _, f := range files {
		k, err := fileKey(f)
		if err != nil {
			return "", fmt.Errorf("Go proxy tree for %s: %w", modDir, err)
		}
		parts = append(parts, k)
	}
	parts = append(parts, GoSDKModule.Path, GoSDKModule.Version, GoSDKModule.Commit, "with .info for every .mod", helm.InstallHint)
	return cache.Key(parts...), nil
}

// fillModuleProxy makes the tree in partial (cache.Fill's directory, its
// log at logPath): the Go SDK's module first, then what a fresh module
// cache downloads for the codegen, the repository's modules and helm,
// copied from that cache; only the tree stays.
func fillModuleProxy(ctx context.Context, o Options, modDir, repoDir, partial, logPath string) error {
	tree := filepath.Join(partial, "goproxy")
	if err := addGoSDKModule(ctx, o, partial, tree); err != nil {
		return err
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	upstream, err := goEnv(ctx, "GOPROXY")
	if err != nil {
		return err
	}
	modcache := filepath.Join(partial, "modcache")
	env := []string{
		"GOMODCACHE=" + modcache, "GOFLAGS=-mod=mod", "GOWORK=off", "GONOSUMDB=" + GoSDKModule.Path,
		"GOPROXY=file://" + tree + "," + gobuild.ProxyOnly(upstream),
	}
	copyDir := filepath.Join(partial, "module")
	if err := codegenModules(ctx, logf, logPath, modDir, partial, copyDir, env); err != nil {
		return err
	}
	if err := repoModuleDownloads(ctx, logf, logPath, repoDir, partial, env); err != nil {
		return err
	}
	if err := helmModules(ctx, logf, partial, env); err != nil {
		return fmt.Errorf("Go proxy tree: %w; %s ends with:\n%s", err, logPath, bincache.TailFile(logPath, 20))
	}
	download := filepath.Join(modcache, "cache", "download") + "/."
	if out, err := exec.CommandContext(ctx, "cp", "-a", "--no-clobber", download, tree).CombinedOutput(); err != nil {
		return fmt.Errorf("Go proxy tree: copy the module cache's downloads: %w: %s", err, out)
	}
	if err := CompleteInfos(tree); err != nil {
		return fmt.Errorf("Go proxy tree: %w", err)
	}
	// the module cache's files are read-only; the cache entry must stay removable
	_ = exec.CommandContext(ctx, "chmod", "-R", "u+w", modcache).Run()
	for _, d := range []string{modcache, copyDir, filepath.Join(partial, "work")} {
		if err := os.RemoveAll(d); err != nil {
			return err
		}
	}
	return nil
}

// addGoSDKModule puts dagger.io/dagger at the commit the Go SDK asks for
// into tree, zipped from its snapshot (in partial's work directory), and
// makes the tree answer the query by that commit.
func addGoSDKModule(ctx context.Context, o Options, partial, tree string) error {
	z, err := ZipModule(ctx, o.Snapshots.Dir(GoSDKModule.Repo), GoSDKModule, filepath.Join(partial, "work"))
	if err != nil {
		return err
	}
	if err := AddToProxy(tree, z); err != nil {
		return err
	}
	return AddQuery(tree, z, GoSDKModule.Commit)
}

// codegenModules does in copyDir, a copy of the module, what the Go SDK's
// codegen does (`go get dagger.io/dagger@<commit>`, `go mod tidy`), so the
// module cache of env holds every module they fetch.
func codegenModules(ctx context.Context, logf *os.File, logPath, modDir, partial, copyDir string, env []string) error {
	steps := [][]string{
		{"cp", "-a", modDir, copyDir},
		{"go", "get", GoSDKModule.Path + "@" + GoSDKModule.Commit},
		{"go", "mod", "tidy"},
	}
	for i, s := range steps {
		wd := copyDir
		if i == 0 {
			wd = partial
		}
		if err := runLogged(ctx, logf, wd, env, s...); err != nil {
			return fmt.Errorf("Go proxy tree: %s: %w; %s ends with:\n%s",
				strings.Join(s, " "), err, logPath, bincache.TailFile(logPath, 20))
		}
	}
	return nil
}

// repoModuleDownloads downloads into the module cache of env every module
// of each of RepoModules (`go mod download all`).
func repoModuleDownloads(ctx context.Context, logf *os.File, logPath, repoDir, partial string, env []string) error {
	for i, m := range RepoModules {
		// In a copy of go.mod and go.sum: `go mod download all` (the
		// module graph, no package loaded) adds the hash of every module
		// it downloads to go.sum, and the checkout is not ours to change.
		d := filepath.Join(partial, "repo-module-"+strconv.Itoa(i))
		if err := copyModFiles(filepath.Join(repoDir, m), d); err != nil {
			return fmt.Errorf("Go proxy tree: %w", err)
		}
		if err := runLogged(ctx, logf, d, env, "go", "mod", "download", "all"); err != nil {
			return fmt.Errorf("Go proxy tree: go mod download all for %s: %w; %s ends with:\n%s",
				filepath.Join(repoDir, m), err, logPath, bincache.TailFile(logPath, 20))
		}
		if err := os.RemoveAll(d); err != nil {
			return err
		}
	}
	return nil
}

// RepoModules are the repository's Go modules the Dagger module builds
// from, relative to its root: the root module (labctl, the unit tests) and
// the local test environment's Kubernetes binaries (quick-test runs
// `labctl testenv build`, which builds ci/testenv/k8sbin's own module).
var RepoModules = []string{".", "ci/testenv/k8sbin"}

// copyModFiles copies a module's go.mod and go.sum into dir.
func copyModFiles(module, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(module, f))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// helmModules downloads into the module cache of env what `go install
// helm.sh/helm/v3/cmd/helm@VERSION` loads, without compiling it: in a
// scratch module requiring helm alone, the build list is helm's own (a
// module given to go install @version may have no replace directives, so
// helm's go.mod selects as it would as the main module), and `go list
// -deps` of cmd/helm fetches the go.mod of every module in the graph and
// the zip of every module providing a package cmd/helm imports.
func helmModules(ctx context.Context, logf *os.File, partial string, env []string) error {
	dir := filepath.Join(partial, "helm-scratch")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, s := range [][]string{
		{"go", "mod", "init", "gpu-lab.invalid/helm-scratch"},
		{"go", "get", helm.Module + "@" + helm.Version},
		{"go", "list", "-deps", helm.Package},
	} {
		if err := runLogged(ctx, logf, dir, env, s...); err != nil {
			return fmt.Errorf("helm's modules: %s: %w", strings.Join(s, " "), err)
		}
	}
	return os.RemoveAll(dir)
}

// AddQuery makes the tree answer `go get path@query` (a commit) with z's
// version, as a module proxy resolves a revision to its pseudo-version.
func AddQuery(root string, z Zipped, query string) error {
	_, info, _, _, err := ProxyFiles(root, z.Module.Path, query)
	if err != nil {
		return err
	}
	return os.WriteFile(info, InfoJSON(z.Module.Version, z.Time), 0o644)
}

func runLogged(ctx context.Context, logf *os.File, dir string, env []string, args ...string) error {
	fmt.Fprintf(logf, "# (cd %s && %s %s)\n", dir, strings.Join(env, " "), strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	return cmd.Run()
}

// CompleteInfos writes a .info beside every .mod of the tree that has
// none. A module cache keeps .info only of versions it resolved by query;
// of a version a go.mod names it keeps .mod and .zip. cmd/go asks a proxy
// for the .info of such versions too (the Go SDK's `go get` inside the
// engine asked for github.com/dagger/querybuilder's and got 404). The
// time is the pseudo-version's, else left out (the field is optional).
func CompleteInfos(tree string) error {
	return filepath.WalkDir(tree, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".mod") || filepath.Base(filepath.Dir(path)) != "@v" {
			return err
		}
		info := strings.TrimSuffix(path, ".mod") + ".info"
		if _, err := os.Stat(info); err == nil {
			return nil
		}
		version, err := module.UnescapeVersion(strings.TrimSuffix(filepath.Base(path), ".mod"))
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return os.WriteFile(info, VersionInfo(version), 0o644)
	})
}

// VersionInfo is the .info of version, with the pseudo-version's time
// when it is one.
func VersionInfo(version string) []byte {
	if t, err := module.PseudoVersionTime(version); err == nil {
		return InfoJSON(version, t)
	}
	b, _ := json.Marshal(struct{ Version string }{version})
	return append(b, '\n')
}
