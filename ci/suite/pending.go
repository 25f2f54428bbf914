package suite

import (
	"context"
	"fmt"

	"github.com/gpu-lab/gpu-lab/ci/suite/assert"
)

// pending creates a pod and asserts kube-scheduler keeps it Pending for
// one of the reasons, then deletes it. Every "stays Pending" case uses it,
// whichever scenario it is in (TC-06, TC-07, TC-16 on the sharing card,
// TC-10 and TC-12 on their own).
func (t *caseT) pending(ctx context.Context, tenant string, p gpuPod, reasons ...string) error {
	got, err := t.createPod(ctx, tenant, p)
	if err != nil {
		return err
	}
	ref := podRef{tenant, got.Namespace, got.Name}
	t.step("created %s (%s)", ref, p.describeAsk())
	msg, err := t.waitVerdict(ctx, ref)
	if err != nil {
		return err
	}
	r, err := assert.Unschedulable(msg, reasons...)
	if err != nil {
		return fmt.Errorf("pod %s: %w", ref, err)
	}
	t.step("kube-scheduler keeps %s Pending: %s (PodScheduled=False: %q)", ref, r, msg)
	return t.deletePod(ctx, ref)
}
