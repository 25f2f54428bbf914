package suite

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/render"
	"github.com/gpu-lab/gpu-lab/ci/suite/assert"
)

// allocEnvCases declares TC-18, the last case of the sharing scenario
// (cases_share.go) on its card.
var allocEnvCases = []caseDecl{
	{
		Case: Case{ID: "TC-18", Title: "A GPU pod's container gets HAMi's Allocate environment: memory and core limits as requested",
			Asserts: "a pod asking TC-03's slice (20000 MB + 30% on 80 GB) pinned to the emptied card runs and " +
				"prints its environment; its container log (kept verbatim as " +
				"diagnostics/TC-18/container-env.log) has CUDA_DEVICE_MEMORY_LIMIT_0 = the request in " +
				"HAMi's unit (20000m), CUDA_DEVICE_SM_LIMIT = the cores (30), NVIDIA_VISIBLE_DEVICES = the " +
				"card HAMi allocated, and no second card's limit — what HAMi's device plugin sets in " +
				"Allocate (plugin/server.go:833-837, :1057-1058@v2.10.0)",
			Needs: needsShare + "; HAMi's device plugin on the card's worker: the real lab runs it; where the card's " +
				"tenant does not (the local test environment, which has no kubelet) the case is skipped " +
				"saying so"},
		// Its needs add the device plugin, which is checked as it runs:
		// without the card the skip names the card alone.
		place: onCards(sharingCard, 0, needsShare),
		run:   func(ctx context.Context, t *caseT, s *stage) error { return s.share.tc18(ctx, t) },
	},
}

// noAllocate is TC-18's skip reason where the card's tenant runs no device
// plugin: nothing answers the kubelet's Allocate, so no container gets
// HAMi's environment.
func noAllocate(tenant string) string {
	return fmt.Sprintf("tenant %s does not run HAMi's device plugin (no DaemonSet %s/%s): no device plugin "+
		"answers the kubelet's Allocate, so no container gets HAMi's environment. "+
		"The local test environment has no kubelet (ci/testenv/README.md, differences)",
		tenant, devicePluginNamespace, devicePluginDaemonSet)
}

// envPollEvery spaces the reads of TC-18's container log while the
// container has not printed its whole environment yet.
const envPollEvery = 500 * time.Millisecond

// TC-18: a GPU pod's container gets the environment HAMi's device plugin
// sets in Allocate (allocenv.go cites it). The pod asks TC-03's slice
// (20000 MB + 30% on an 81920 MB card) on the emptied card and runs the
// mock NVML library's image, which every worker already holds, printing its
// environment; the case reads the container's log through the tenant API
// server.
func (b *shareCard) tc18(ctx context.Context, t *caseT) error {
	_, err := t.client(b.tenant()).AppsV1().DaemonSets(devicePluginNamespace).Get(ctx, devicePluginDaemonSet, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return notApplicable{noAllocate(b.tenant())}
	}
	if err != nil {
		return fmt.Errorf("tenant %s: read DaemonSet %s/%s: %w", b.tenant(), devicePluginNamespace, devicePluginDaemonSet, err)
	}
	if err := b.locate(ctx, t); err != nil {
		return err
	}
	if err := b.emptyCard(ctx, t); err != nil {
		return err
	}
	p := b.slice("tc18-env")
	p.image, p.command = render.NVMLMockImage, envDumpCommand
	bound, err := t.bindFresh(ctx, b.tenant(), p)
	if err != nil {
		return err
	}
	ref := podRef{b.tenant(), bound.Namespace, bound.Name}
	devs, err := assert.Allocated(ref.String(), bound.Annotations)
	if err != nil {
		return err
	}
	if len(devs) != 1 || devs[0].UUID != b.card.ID {
		return fmt.Errorf("pod %s holds %v, want the card %s it was pinned to", ref, devs, b.card.ID)
	}
	if _, err := t.waitBound(ctx, ref, true); err != nil {
		return err
	}
	env, raw, err := t.containerEnv(ctx, ref, "main")
	if raw != "" || err == nil {
		path := t.keep(containerEnvFile, raw)
		t.step("kept the log of container main of %s on %s (card %s), %d bytes read through tenant %s's API server, verbatim as %s",
			ref, bound.Spec.NodeName, devs[0].UUID, len(raw), ref.tenant, path)
	}
	if err != nil {
		return err
	}
	want := allocateEnv{memMB: p.memMB, cores: p.cores, uuid: devs[0].UUID}
	if err := want.check(env); err != nil {
		return fmt.Errorf("pod %s: %w", ref, err)
	}
	w := want.want()
	t.step("container main of %s has %s%s=%s, %s=%s, %s=%s: HAMi's Allocate for %d MB + %d%% on %s",
		ref, envMemoryLimitPrefix, "0", w[envMemoryLimitPrefix+"0"], envCoreLimit, w[envCoreLimit], envVisibleDevices, w[envVisibleDevices],
		p.memMB, p.cores, b.card.ID)
	return t.deletePod(ctx, ref)
}

// containerEnvFile is the diagnostics file in which TC-18 keeps the log it
// read, verbatim, also when it passes: the parser's tests are on text
// written from HAMi's format strings (allocenv_test.go), and a real lab's
// run records what a container there really prints, for the maintainers
// to copy into testdata with its provenance (the case's steps).
const containerEnvFile = "container-env.log"

// containerEnv reads the environment a container printed (envDumpCommand)
// from its log, read again until the end line is there or the bind
// timeout passes; the error then holds the last read's failure. raw is the
// last log read, as the API server returned it ("" when none was).
func (t *caseT) containerEnv(ctx context.Context, ref podRef, container string) (env map[string]string, raw string, err error) {
	deadline := time.Now().Add(t.r.tm.Bind)
	var last string
	for {
		// One read may not outlast the deadline: a log the API server
		// cannot fetch from the kubelet may hang rather than fail.
		rctx, cancel := context.WithTimeout(ctx, max(time.Until(deadline), envPollEvery))
		log, err := t.client(ref.tenant).CoreV1().Pods(ref.namespace).GetLogs(ref.name, &corev1.PodLogOptions{Container: container}).DoRaw(rctx)
		cancel()
		if err == nil {
			raw = string(log)
			env, complete := parseEnvDump(raw)
			if complete {
				return env, raw, nil
			}
			last = fmt.Sprintf("the log has %d variable(s) and no %q line yet", len(env), envDumpEnd)
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			return nil, raw, fmt.Errorf("tenant %s: container %s of pod %s did not print its environment within %s: %s",
				ref.tenant, container, ref, t.r.tm.Bind, last)
		}
		select {
		case <-ctx.Done():
			return nil, raw, fmt.Errorf("tenant %s: read the log of container %s of pod %s: %w", ref.tenant, container, ref, ctx.Err())
		case <-time.After(envPollEvery):
		}
	}
}
