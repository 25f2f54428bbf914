package imagebuild

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/nodeimage"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/nodeadapt"
)

// adaptNode gives a node image what this machine needs to run its pods
// (ci/hack/rehearsal/nodeadapt has the finding and its evidence): kind's
// containerd config patched by nodeadapt, and the runtime wrapper that
// config names, built once into the cache.
func (b *builder) adaptNode(in *nodeimage.Inputs) error {
	wrapper := filepath.Join(b.root(), "bin", "runc-capfilter")
	if _, ok := b.bins["runc-capfilter"]; !ok {
		err := nodeadapt.BuildWrapper(b.ctx, wrapper)
		b.bins["runc-capfilter"] = binResult{wrapper, err}
	}
	if r := b.bins["runc-capfilter"]; r.err != nil {
		return fmt.Errorf("node image adaptation: %w", r.err)
	}
	extra, cfg, err := adaptedNode(*in, wrapper)
	if err != nil {
		return err
	}
	in.ContainerdTOML, in.Extra = cfg, extra
	return nil
}

// adaptedNode is the adapted config.toml of a node and its extra files
// with the wrapper at nodeadapt.WrapperPath.
func adaptedNode(in nodeimage.Inputs, wrapper string) ([]imagespec.File, string, error) {
	if _, err := os.Stat(wrapper); err != nil {
		return nil, "", fmt.Errorf("node image adaptation: the runtime wrapper: %w", err)
	}
	cfg, err := nodeadapt.PatchContainerdConfig([]byte(nodeimage.ContainerdConfig(in.Containerd)))
	if err != nil {
		return nil, "", fmt.Errorf("node image adaptation: %w", err)
	}
	extra := append(append([]imagespec.File(nil), in.Extra...), imagespec.File{Dest: nodeadapt.WrapperPath, Mode: 0o755, Src: wrapper})
	return extra, string(cfg), nil
}
