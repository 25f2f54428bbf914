package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
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
	lab    *Lab
	svc    *dagger.Service // nil when the daemon never started
	ctr    *dagger.Container
	output map[string]string // step → log
	run    labcmd.Progress
}

// start starts a daemon, clears what earlier runs left in its cached data
// root and runs the chosen stages. Failing and broken steps are recorded,
// not returned: callers still want the reports, the logs and a shell.
func (l *Lab) start(ctx context.Context) (*session, error) {
	s := &session{lab: l, output: map[string]string{}, run: labcmd.Progress{KeepGoing: l.KeepGoing}}
	var stages []string
	if l.Last != "" {
		var err error
		if stages, err = labcmd.Through(l.Last); err != nil {
			return nil, err
		}
	}
	// Build labctl and helm first: a build error is the call's error, never
	// a step's, and the builds do not run while this run holds the daemon.
	// helm needs no cache volume: every chart comes from the bundle.
	runner, err := l.tool().
		WithFile(labcmd.HelmPath, l.Helm, dagger.ContainerWithFileOpts{Permissions: 0o755}).
		// An empty directory, root's and 0755 (Dagger v0.21.8
		// util/layercopy/dest_linux.go:260, mkdirMode without a source),
		// which labctl accepts as a state dir to claim.
		WithDirectory(labcmd.StateDir, dag.Directory()).
		WithDirectory(labcmd.ReportDir, dag.Directory()).
		Sync(ctx)
	if err != nil {
		return nil, fmt.Errorf("building the runner (labctl, helm): %w", err)
	}
	s.ctr = runner
	bundle, err := l.bundle(ctx)
	if err != nil {
		s.record(labcmd.SetupFailed("bundle", err.Error()))
		return s, nil
	}
	s.ctr = s.ctr.WithMountedDirectory(labcmd.BundleDir, bundle)
	svc, err := startDind(ctx)
	if err != nil {
		s.record(labcmd.SetupFailed("dind", err.Error()))
		return s, nil
	}
	s.svc = svc
	s.ctr = s.ctr.
		WithServiceBinding(labcmd.DockerAlias, svc).
		WithEnvVariable("DOCKER_HOST", labcmd.DockerHost).
		WithEnvVariable(labcmd.NonceEnv, nonce())
	if !s.run.RecordWipe(s.exec(ctx, "wipe", labcmd.Wipe())) {
		return s, nil
	}
	for _, st := range stages {
		if !s.run.Record(s.exec(ctx, st, labcmd.Up(st))) {
			break
		}
	}
	return s, nil
}

// startDind starts the lab's daemon and says so while it waits: a second
// run on the same engine blocks here, silently, until the first one
// releases the Locked data-root volume.
func startDind(ctx context.Context) (*dagger.Service, error) {
	done := make(chan struct{})
	defer close(done)
	ticker := time.NewTicker(labcmd.DindNoticeEvery)
	defer ticker.Stop()
	go labcmd.NoticeWhileWaiting(done, ticker.C, time.Now(), func(msg string) { slog.Warn(msg) })
	return dind().Start(ctx)
}

// exec runs one step on the runner and keeps its log. An exec Dagger
// refuses to return (killed by a signal, or the Docker service exiting
// under it) comes back as a broken step, never as an error: the run must
// still hand back its reports.
func (s *session) exec(ctx context.Context, step string, args []string) labcmd.Step {
	ctr, err := s.ctr.WithExec(args, dagger.ContainerWithExecOpts{Expect: dagger.ReturnTypeAny}).Sync(ctx)
	var (
		code int
		out  string
	)
	if err == nil {
		code, err = ctr.ExitCode(ctx)
	}
	if err == nil {
		out, err = ctr.CombinedOutput(ctx)
	}
	if err != nil {
		st := brokenStep(step, err)
		s.output[step] = st.Log()
		return st
	}
	s.ctr, s.output[step] = ctr, out
	return labcmd.Step{Name: step, Code: code, Output: out}
}

// brokenStep classifies an engine error: an ExecError carries the exit code
// and output of an exec killed by a signal (Dagger v0.21.8
// core/exec_error.go); anything else, e.g. "bound service … exited"
// (core/container_exec.go, serviceBindingExitError), has no exit code.
func brokenStep(step string, err error) labcmd.Step {
	var ee *dagger.ExecError
	if errors.As(err, &ee) {
		out := strings.TrimSpace(strings.Join([]string{ee.Stdout, ee.Stderr}, "\n"))
		return labcmd.BrokenExec(step, ee.ExitCode, true, out, err.Error())
	}
	return labcmd.BrokenExec(step, 0, false, "", err.Error())
}

// record records a step that is not an exec (the bundle or the daemon
// failing).
func (s *session) record(st labcmd.Step) {
	s.output[st.Name] = st.Log()
	s.run.Record(st)
}

// test runs the suite unless a stage failed (and keep-going is off) or a
// step broke, then collects the reports while the daemon is still up. It
// returns reports in every case; only an engine that cannot even write a
// directory makes it fail.
func (s *session) test(ctx context.Context, suite labcmd.Suite) (*LabResult, error) {
	suiteCode := 0
	if s.run.RunSuite() {
		st := s.exec(ctx, "test", labcmd.Test(suite))
		if st.Broken != "" {
			s.run.Record(st)
		}
		suiteCode = st.Code
	}
	code := s.run.ExitCode(suiteCode)
	summary := s.run.Summary(func(step string) string { return labcmd.Tail(s.output[step], 40) })
	extras := func(dir *dagger.Directory) *dagger.Directory {
		dir = dir.WithDirectory("logs", s.logs()).WithNewFile(labcmd.ExitCodeFile, strconv.Itoa(code)+"\n")
		if summary != "" {
			dir = dir.WithNewFile("summary.md", summary)
		}
		return dir
	}
	full := extras(s.ctr.Directory(labcmd.ReportDir).
		WithDirectory("state", s.ctr.Directory(labcmd.StateDir), dagger.DirectoryWithDirectoryOpts{Exclude: []string{labcmd.StateKubeconfigs}}))
	// Evaluate now: the directory must not be computed after the daemon stops.
	reports, err := full.Sync(ctx)
	if err != nil {
		// The runner's directories could not be read (e.g. the engine lost
		// them with the daemon): hand back what the module itself holds.
		slog.Warn("gpu-lab: reports and state of the runner are lost; returning logs, exit-code and summary only", "error", err)
		if summary == "" {
			summary = labcmd.Tail(s.output["test"], 40)
		}
		summary += "\n\nThe runner's report and state directories could not be read (" + err.Error() + "); only the module's logs are here.\n"
		if code == 0 {
			code = labcmd.EngineErrorCode
		}
		reports, err = extras(dag.Directory()).Sync(ctx)
		if err != nil {
			return nil, fmt.Errorf("reports: %w", err)
		}
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

// stop stops the daemon, gracefully and then by force, each bounded by
// DindStopGrace: Dagger's stop waits for the exit without a limit of its
// own, and the next run wipes whatever is left anyway.
func (s *session) stop(ctx context.Context) {
	if s.svc == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), labcmd.DindStopGrace)
	defer cancel()
	if _, err := s.svc.Stop(ctx); err == nil {
		return
	}
	kill, cancelKill := context.WithTimeout(context.WithoutCancel(ctx), labcmd.DindStopGrace)
	defer cancelKill()
	if _, err := s.svc.Stop(kill, dagger.ServiceStopOpts{Kill: true}); err != nil {
		slog.Warn("gpu-lab: the Docker-in-Docker service did not stop; Dagger stops it with the session", "error", err)
	}
}

// kubectl downloads the kubectl release matching the pinned tenant version
// for the engine's platform (only the terminal needs it); Dagger refuses a
// download whose digest is not the pinned one.
func kubectl(ctx context.Context) (*dagger.File, error) {
	platform, err := dag.DefaultPlatform(ctx)
	if err != nil {
		return nil, err
	}
	url, checksum, err := labcmd.KubectlRelease(string(platform))
	if err != nil {
		return nil, err
	}
	return dag.HTTP(url, dagger.HTTPOpts{Checksum: checksum}), nil
}

// nonce is unique per call: a new value on every run, so execs against the
// daemon are never answered from the cache of an earlier session.
func nonce() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format(time.RFC3339Nano) + "-" + hex.EncodeToString(b)
}
