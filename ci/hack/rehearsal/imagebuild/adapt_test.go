package imagebuild

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/nodeimage"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/nodeadapt"
)

// The adapted node is kind's node with the two settings nodeadapt found
// and the wrapper they name; the node's own extra files stay.
func TestAdaptedNodeSetsWhatPodsNeedHere(t *testing.T) {
	wrapper := filepath.Join(t.TempDir(), "runc-capfilter")
	if err := os.WriteFile(wrapper, []byte("w"), 0o755); err != nil {
		t.Fatal(err)
	}
	in := nodeimage.Inputs{Containerd: nodeimage.ContainerdOptions{SandboxImage: sandboxImage}, Extra: []imagespec.File{{Dest: "/etc/x"}}}
	extra, cfg, err := adaptedNode(in, wrapper)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"restrict_oom_score_adj = true", `BinaryName = "` + nodeadapt.WrapperPath + `"`,
		`sandbox_image = "` + sandboxImage + `"`} {
		if !strings.Contains(cfg, w) {
			t.Errorf("adapted config lacks %q:\n%s", w, cfg)
		}
	}
	if strings.Contains(cfg, "restrict_oom_score_adj = false") {
		t.Errorf("adapted config still restricts nothing:\n%s", cfg)
	}
	if len(extra) != 2 || extra[0].Dest != "/etc/x" || extra[1].Dest != nodeadapt.WrapperPath || extra[1].Src != wrapper ||
		extra[1].Mode != 0o755 {
		t.Errorf("extra files = %+v, want /etc/x then the wrapper at %s", extra, nodeadapt.WrapperPath)
	}
	if len(in.Extra) != 1 {
		t.Errorf("the caller's extra files changed: %+v", in.Extra)
	}
	spec := nodeimage.BaseSpec("r", "b", nodeimage.Inputs{ContainerdTOML: cfg, Extra: extra})
	var got string
	for _, f := range spec.Files {
		if f.Dest == "/etc/containerd/config.toml" {
			got = string(f.Data)
		}
	}
	if got != cfg {
		t.Errorf("the node spec's config.toml is not the adapted one:\n%s", got)
	}
	if _, _, err := adaptedNode(in, filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "runtime wrapper") {
		t.Errorf("a missing wrapper: err = %v, want one naming the runtime wrapper", err)
	}
}
