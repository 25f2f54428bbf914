package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"dagger/gpu-lab/internal/dagger"
	"dagger/gpu-lab/labcmd"
)

// dind is the Docker daemon of a lab. The entrypoint applies the cgroup v2
// nesting fix kind nodes need; TLS is off because only bound containers of
// this session can reach it.
func dind() *dagger.Service {
	return dag.Container().From(labcmd.DindImage).
		WithEnvVariable("DOCKER_TLS_CERTDIR", "").
		WithMountedCache("/var/lib/docker", dag.CacheVolume(labcmd.DockerCache),
			dagger.ContainerWithMountedCacheOpts{Sharing: dagger.CacheSharingModeLocked}).
		WithExposedPort(labcmd.DockerPort).
		AsService(dagger.ContainerAsServiceOpts{
			Args:                     []string{"dockerd", "--host=tcp://0.0.0.0:" + strconv.Itoa(labcmd.DockerPort), "--host=unix:///var/run/docker.sock", "--tls=false"},
			UseEntrypoint:            true,
			InsecureRootCapabilities: true,
		})
}

// tool is the runner without a daemon, for commands that need none.
func (l *Lab) tool() *dagger.Container {
	return dag.Container().From(labcmd.RunnerImage).
		WithFile(labcmd.LabctlPath, l.Labctl, dagger.ContainerWithFileOpts{Permissions: 0o755}).
		WithFile(labcmd.ConfigPath, l.Config).
		WithWorkdir(labcmd.WorkDir)
}

// session is one started daemon and the runner bound to it.
type session struct {
	ctx    context.Context
	lab    *Lab
	svc    *dagger.Service
	ctr    *dagger.Container
	output map[string]string // step → combined output
	run    labcmd.Progress
}

// start starts a daemon, clears what earlier runs left in its cached data
// root and runs the chosen stages. A failing stage is recorded, not
// returned: callers still want its logs and a shell.
func (l *Lab) start(ctx context.Context) (*session, error) {
	svc, err := dind().Start(ctx)
	if err != nil {
		return nil, err
	}
	s := &session{ctx: ctx, lab: l, svc: svc, output: map[string]string{}, run: labcmd.Progress{KeepGoing: l.KeepGoing}}
	s.ctr = l.tool().
		WithFile(labcmd.HelmPath, helm(), dagger.ContainerWithFileOpts{Permissions: 0o755}).
		WithDirectory(labcmd.StateDir, dag.Directory()).
		WithDirectory(labcmd.ReportDir, dag.Directory()).
		WithMountedCache(labcmd.CacheDir, dag.CacheVolume(labcmd.ChartCache)).
		WithEnvVariable("XDG_CACHE_HOME", labcmd.CacheDir).
		WithServiceBinding(labcmd.DockerAlias, svc).
		WithEnvVariable("DOCKER_HOST", labcmd.DockerHost).
		WithEnvVariable(labcmd.NonceEnv, nonce())
	if _, err := s.exec("wipe", labcmd.Wipe()); err != nil {
		s.stop()
		return nil, err
	}
	if l.Last == "" {
		return s, nil
	}
	stages, err := labcmd.Through(l.Last)
	if err != nil {
		s.stop()
		return nil, err
	}
	for _, st := range stages {
		code, err := s.exec(st, labcmd.Up(st))
		if err != nil {
			s.stop()
			return nil, err
		}
		if !s.run.Stage(st, code) {
			break
		}
	}
	return s, nil
}

// exec runs one step on the runner, keeps its output and returns its exit
// code; only engine errors are errors.
func (s *session) exec(step string, args []string) (int, error) {
	ctr, err := s.ctr.WithExec(args, dagger.ContainerWithExecOpts{Expect: dagger.ReturnTypeAny}).Sync(s.ctx)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", step, err)
	}
	code, err := ctr.ExitCode(s.ctx)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", step, err)
	}
	out, err := ctr.CombinedOutput(s.ctx)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", step, err)
	}
	s.ctr, s.output[step] = ctr, out
	if step == "wipe" && code != 0 {
		return code, fmt.Errorf("clearing the Docker daemon failed (exit code %d):\n%s", code, out)
	}
	return code, nil
}

// test runs the suite unless a stage failed (and keep-going is off), then
// collects the reports while the daemon is still up.
func (s *session) test(ctx context.Context, suite labcmd.Suite) (*LabResult, error) {
	suiteCode := 0
	if s.run.RunSuite() {
		c, err := s.exec("test", labcmd.Test(suite))
		if err != nil {
			return nil, err
		}
		suiteCode = c
	}
	code := s.run.ExitCode(suiteCode)
	reports := s.ctr.Directory(labcmd.ReportDir).
		WithDirectory("logs", s.logs()).
		WithDirectory("state", s.ctr.Directory(labcmd.StateDir), dagger.DirectoryWithDirectoryOpts{Exclude: []string{"kubeconfigs"}}).
		WithNewFile(labcmd.ExitCodeFile, strconv.Itoa(code)+"\n")
	if !s.run.RunSuite() {
		failed := s.run.Failed
		reports = reports.WithNewFile("summary.md", labcmd.StageFailure(failed, s.run.FailedCode, labcmd.Tail(s.output[failed], 40)))
	}
	// Evaluate now: the directory must not be computed after the daemon stops.
	reports, err := reports.Sync(ctx)
	if err != nil {
		return nil, err
	}
	return &LabResult{Reports: reports, ExitCode: code}, nil
}

// logs is one file per step that ran.
func (s *session) logs() *dagger.Directory {
	dir := dag.Directory()
	for step, out := range s.output {
		dir = dir.WithNewFile(step+".log", out)
	}
	return dir
}

func (s *session) stop() {
	_, _ = s.svc.Stop(s.ctx)
}

// kubectl downloads the kubectl release matching the pinned tenant version
// for the engine's platform (only the terminal needs it).
func kubectl(ctx context.Context) (*dagger.File, error) {
	platform, err := dag.DefaultPlatform(ctx)
	if err != nil {
		return nil, err
	}
	url, err := labcmd.KubectlURL(string(platform))
	if err != nil {
		return nil, err
	}
	return dag.HTTP(url), nil
}

// nonce is unique per call: a new value on every run, so execs against the
// daemon are never answered from the cache of an earlier session.
func nonce() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format(time.RFC3339Nano) + "-" + hex.EncodeToString(b)
}
