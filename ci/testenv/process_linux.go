package testenv

import "syscall"

// sysProcAttr puts the child in its own process group and kills it when the
// starting process dies, so a test binary killed by its timeout leaves
// nothing behind even though no Cleanup runs.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
