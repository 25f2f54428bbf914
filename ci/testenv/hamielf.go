package testenv

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
)

// elfMachines maps GOARCH to the ELF machine a binary for it has.
var elfMachines = map[string]elf.Machine{
	"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64, "386": elf.EM_386,
	"arm": elf.EM_ARM, "ppc64le": elf.EM_PPC64, "s390x": elf.EM_S390, "riscv64": elf.EM_RISCV,
}

// checkRunnable says, before anything starts, why this machine cannot run
// bin, where exec would only say "no such file or directory" once every
// API server is up. HAMi's scheduler is a cgo build (it links NVIDIA's NVML
// bindings) on golang:…-bookworm (HAMi v2.10.0 version.mk GOLANG_IMAGE), so
// it is dynamically linked against glibc and needs glibc's loader
// (/lib64/ld-linux-x86-64.so.2 on amd64): a musl system (Alpine) has none.
// Only Linux ELF binaries are checked; anything else is left to exec.
func checkRunnable(bin string) error {
	f, err := elf.Open(bin)
	if err != nil {
		var fe *elf.FormatError
		if errors.As(err, &fe) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil // not ELF (a script, say): exec decides
		}
		return fmt.Errorf("read %s: %w", bin, err)
	}
	defer f.Close()
	if want, ok := elfMachines[runtime.GOARCH]; ok && runtime.GOOS == "linux" && f.Machine != want {
		return fmt.Errorf("%s is a %s binary; this machine runs %s/%s", bin, strings.TrimPrefix(f.Machine.String(), "EM_"), runtime.GOOS,
			runtime.GOARCH)
	}
	interp, err := elfInterpreter(f)
	if err != nil {
		return fmt.Errorf("read %s: %w", bin, err)
	}
	if interp == "" {
		return nil // statically linked
	}
	if _, err := os.Stat(interp); err != nil {
		kind := "its dynamic loader"
		if strings.Contains(interp, "ld-linux") {
			kind = "glibc's dynamic loader"
		}
		return fmt.Errorf("%s is dynamically linked and needs %s %s, which this machine lacks (a musl system such as Alpine has none): run it "+
			"where glibc is installed, as in HAMi's Ubuntu-based image", bin, kind, interp)
	}
	return nil
}

// elfInterpreter is the program interpreter (PT_INTERP) a dynamically
// linked binary names, empty for a static one.
func elfInterpreter(f *elf.File) (string, error) {
	for _, p := range f.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		b, err := io.ReadAll(p.Open())
		if err != nil {
			return "", err
		}
		return strings.TrimRight(string(b), "\x00"), nil
	}
	return "", nil
}
