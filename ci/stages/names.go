package stages

import (
	"fmt"
	"slices"
	"strings"
)

// Stage names, in order.
const (
	Cluster = "cluster"
	Kamaji  = "kamaji"
	Tenants = "tenants"
	Workers = "workers"
	HAMi    = "hami"
	GPUs    = "gpus"
)

// Names lists the stages in the order they run.
var Names = []string{Cluster, Kamaji, Tenants, Workers, HAMi, GPUs}

// ValidateOnly checks a --only value.
func ValidateOnly(only string) error {
	if only == "" || slices.Contains(Names, only) {
		return nil
	}
	return fmt.Errorf("--only %q: unknown stage, want one of %s", only, strings.Join(Names, ", "))
}
