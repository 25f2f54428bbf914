package stages

import (
	"fmt"
	"slices"
	"strings"
)

// Stage names, in order.
const (
	stageCluster = "cluster"
	stageKamaji  = "kamaji"
	stageTenants = "tenants"
	stageWorkers = "workers"
	stageHAMi    = "hami"
	stageGPUs    = "gpus"
)

// Names lists the stages in the order they run.
var Names = []string{stageCluster, stageKamaji, stageTenants, stageWorkers, stageHAMi, stageGPUs}

// ValidateOnly checks a --only value.
func ValidateOnly(only string) error {
	if only == "" || slices.Contains(Names, only) {
		return nil
	}
	return fmt.Errorf("--only %q: unknown stage, want one of %s", only, strings.Join(Names, ", "))
}
