package nodeadapt

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	toml "github.com/pelletier/go-toml"
)

// kindContainerdConfig is kind v0.33.0's node containerd configuration,
// read from the module cache (kind is a dependency of this module).
func kindContainerdConfig(t *testing.T) []byte {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-json", "sigs.k8s.io/kind").Output()
	if err != nil {
		t.Skipf("skipping: go list -m sigs.k8s.io/kind: %v", err)
	}
	var m struct{ Dir, Version string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		t.Skipf("skipping: kind's module is not downloaded (go mod download sigs.k8s.io/kind)")
	}
	if m.Version != "v0.33.0" {
		t.Fatalf("kind is %s in go.mod; this test reads v0.33.0's file", m.Version)
	}
	b, err := os.ReadFile(filepath.Join(m.Dir, "images/base/files/etc/containerd/config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPatchKindNodeConfig(t *testing.T) {
	in := kindContainerdConfig(t)
	before, err := toml.LoadBytes(in)
	if err != nil {
		t.Fatal(err)
	}
	if before.GetPath(restrictOOMPath(v2)) != false {
		t.Fatalf("kind's config has restrict_oom_score_adj = %v; expected false (the case this adaptation is for)",
			before.GetPath(restrictOOMPath(v2)))
	}
	out, err := PatchContainerdConfig(in)
	if err != nil {
		t.Fatal(err)
	}
	after, err := toml.LoadBytes(out)
	if err != nil {
		t.Fatalf("patched config does not parse: %v\n%s", err, out)
	}
	if after.GetPath(restrictOOMPath(v2)) != true || after.GetPath(binaryNamePath(v2)) != WrapperPath {
		t.Fatalf("patched: restrict_oom_score_adj %v, BinaryName %v\n%s", after.GetPath(restrictOOMPath(v2)),
			after.GetPath(binaryNamePath(v2)), out)
	}
	// Everything kind had is kept: the patch only adds.
	beforeMap, afterMap := before.ToMap(), after.ToMap()
	cri := func(m map[string]any) map[string]any {
		return m["plugins"].(map[string]any)["io.containerd.grpc.v1.cri"].(map[string]any)
	}
	delete(cri(afterMap), "restrict_oom_score_adj")
	delete(cri(beforeMap), "restrict_oom_score_adj")
	opts := cri(afterMap)["containerd"].(map[string]any)["runtimes"].(map[string]any)["runc"].(map[string]any)["options"].(map[string]any)
	delete(opts, "BinaryName")
	a, _ := json.Marshal(afterMap)
	b, _ := json.Marshal(beforeMap)
	if string(a) != string(b) {
		t.Fatalf("the patch changed other settings:\nbefore %s\nafter  %s", b, a)
	}
}

// v2 is the CRI plugin's section in a version 2 config.
const v2 = "io.containerd.grpc.v1.cri"

func TestPatchRejects(t *testing.T) {
	for name, in := range map[string]string{
		"version 1":  "version = 1\n[plugins.cri]\n  sandbox_image = \"x\"\n",
		"version 5":  "version = 5\n",
		"not toml":   "[plugins\n",
		"no version": "[plugins.\"io.containerd.grpc.v1.cri\"]\n",
	} {
		t.Run(name, func(t *testing.T) {
			if out, err := PatchContainerdConfig([]byte(in)); err == nil {
				t.Fatalf("accepted:\n%s", out)
			}
		})
	}
}

func TestPatchMinimal(t *testing.T) {
	out, err := PatchContainerdConfig([]byte("version = 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := toml.LoadBytes(out)
	if err != nil {
		t.Fatal(err)
	}
	if tree.GetPath(restrictOOMPath(v2)) != true || tree.GetPath(binaryNamePath(v2)) != WrapperPath || tree.Get("version") != int64(2) ||
		tree.GetPath(runtimeTypePath(v2)) != runcRuntimeType {
		t.Fatalf("patched minimal config:\n%s", out)
	}
}

// A runtime_type the config has is kept (kind's is io.containerd.runc.v2
// already; another one is the image builder's choice).
func TestPatchKeepsRuntimeType(t *testing.T) {
	in := "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n  runtime_type = \"io.containerd.runc.v1\"\n"
	out, err := PatchContainerdConfig([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := toml.LoadBytes(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := tree.GetPath(runtimeTypePath(v2)); got != "io.containerd.runc.v1" {
		t.Fatalf("runtime_type = %v, want the config's own", got)
	}
}

// From version 3 on the settings go into the CRI runtime plugin's section.
func TestPatchVersion3(t *testing.T) {
	for _, v := range []string{"3", "4"} {
		out, err := PatchContainerdConfig([]byte("version = " + v + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		tree, err := toml.LoadBytes(out)
		if err != nil {
			t.Fatal(err)
		}
		p := "io.containerd.cri.v1.runtime"
		if tree.GetPath(restrictOOMPath(p)) != true || tree.GetPath(binaryNamePath(p)) != WrapperPath ||
			tree.GetPath(runtimeTypePath(p)) != runcRuntimeType || tree.GetPath([]string{"plugins", v2}) != nil {
			t.Fatalf("version %s patched:\n%s", v, out)
		}
	}
}
