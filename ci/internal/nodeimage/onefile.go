package nodeimage

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"fmt"
	"io"
)

// CheckStaticLinux verifies the binary can run alone in a one-file image:
// a linux ELF without an interpreter or shared libraries (CGO_ENABLED=0).
func CheckStaticLinux(r io.ReaderAt) error {
	f, err := elf.NewFile(r)
	if err != nil {
		return fmt.Errorf("not a Linux ELF binary (%v): build labctl for linux with CGO_ENABLED=0", err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("labctl is dynamically linked: build it with CGO_ENABLED=0 so it runs in a one-file image")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		return fmt.Errorf("labctl needs shared libraries %v: build it with CGO_ENABLED=0", libs)
	}
	return nil
}

// ImageRootfs is the root filesystem of the finalizer image: just /labctl.
func ImageRootfs(binary []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: "labctl", Mode: 0o755, Size: int64(len(binary)), Typeflag: tar.TypeReg}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(binary); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ImageChanges are the `docker import --change` lines of the image.
var ImageChanges = []string{`ENTRYPOINT ["/labctl"]`}

// containerdName is how containerd names an image docker calls ref.
func containerdName(ref string) string { return "docker.io/" + ref }
