package imagebuild

import (
	"debug/elf"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"
)

// The stub is where HAMi's release image holds HAMi-core's library, under
// the version HAMi's device plugin looks for (util.go:46 "libvgpu.so." +
// info.GetVersion(), the version hamiProgram stamps).
func TestLibvgpuStubIsWhereThePluginLooks(t *testing.T) {
	if got, want := libvgpuStubPath(), "/k8s-vgpu/lib/nvidia/libvgpu.so.v2.10.0"; got != want {
		t.Errorf("stub at %s, want %s", got, want)
	}
	s := withLibvgpuStub(imagespec.Spec{Files: []imagespec.File{{Dest: "/a"}}}, "/cache/libvgpu.so.v2.10.0")
	if len(s.Files) != 2 || s.Files[1].Src != "/cache/libvgpu.so.v2.10.0" || s.Files[1].Dest != libvgpuStubPath() {
		t.Errorf("files %+v", s.Files)
	}
}

// gcc makes of the empty source a shared object that needs nothing: what
// ld.so preloads without a word.
func TestLibvgpuStubIsAnEmptySharedObject(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc (a prerequisite of the rehearsal's image builds)")
	}
	out := filepath.Join(t.TempDir(), "libvgpu.so")
	if msg, err := exec.Command("gcc", libvgpuStubArgs(out)...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v: %s", err, msg)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	syms, _ := f.ImportedSymbols()
	if f.Type != elf.ET_DYN || len(libs) != 0 || len(syms) != 0 {
		t.Errorf("type %v, needs %v, imports %v: want a shared object needing nothing", f.Type, libs, syms)
	}
}
