package main

import (
	"github.com/spf13/pflag"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/cache"
)

// cacheFlag is the --cache flag of rehearse's build commands: the
// rehearsal cache, by default cache.Root's ($GPU_LAB_REHEARSAL_CACHE or
// ~/.cache/gpu-lab/rehearsal), so every command finds what another built.
type cacheFlag string

// register adds --cache to f; more says what the command keeps there.
func (c *cacheFlag) register(f *pflag.FlagSet, more string) {
	f.StringVar((*string)(c), "cache", "", "cache directory (default $"+cache.EnvRoot+" or ~/.cache/gpu-lab/rehearsal)"+more)
}

// dir is the directory given, else the default.
func (c cacheFlag) dir() (string, error) {
	if c != "" {
		return string(c), nil
	}
	return cache.Root()
}
