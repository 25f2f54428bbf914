package labcmd

import (
	"fmt"
	"slices"
	"strings"
)

// Stages are labctl's stages in the order they run (ci/stages.Names; a test
// keeps the two lists equal).
var Stages = []string{"cluster", "kamaji", "tenants", "workers", "hami", "gpus"}

// Through returns the stages up to and including last, in order.
func Through(last string) ([]string, error) {
	i := slices.Index(Stages, last)
	if i < 0 {
		return nil, fmt.Errorf("stage %q: unknown, want one of %s", last, strings.Join(Stages, ", "))
	}
	return slices.Clone(Stages[:i+1]), nil
}

// Later returns whichever of two stages runs later ("" counts as none), so
// chaining `cluster tenants kamaji` still brings the lab up to tenants.
func Later(a, b string) string {
	if slices.Index(Stages, b) > slices.Index(Stages, a) {
		return b
	}
	return a
}
