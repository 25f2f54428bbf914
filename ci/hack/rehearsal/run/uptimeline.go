package run

import (
	"fmt"
	"os"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/timeline"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// upTimeline is the report's section on the steps of labctl up, read from
// its --verbose log: each recorded stage's critical path and every step's
// start and time (issue 42). A log that cannot be read says so instead.
func upTimeline(log string, stages []state.StageRecord) string {
	f, err := os.Open(log)
	if err != nil {
		return fmt.Sprintf("The steps were not read: %v.\n", err)
	}
	defer f.Close()
	steps, err := timeline.Parse(f)
	if err != nil {
		return fmt.Sprintf("The steps were not read from %s: %v.\n", log, err)
	}
	var names []string
	for _, s := range stages {
		names = append(names, s.Name)
	}
	return timeline.Markdown(steps, names)
}
