// Package capfilter is the pure logic of the rehearsal's OCI runtime wrapper:
// it deletes, from a container's capability sets, every capability the
// wrapper's own bounding set lacks, so that runc does not fail with
// "unable to apply caps: operation not permitted" on a host (or in a
// container) that cannot grant them — the sandbox the rehearsal runs in lacks
// CAP_SYS_RESOURCE, and `docker run --privileged` (and kubelet's privileged
// pods inside a kind node) ask for every capability. On a host with a full
// bounding set the wrapper changes nothing.
//
// The wrapper's entry point (runc-capfilter) reads its bounding set, finds the
// file runc is about to read (Target), filters it (FilterSpec, FilterProcess)
// and executes the real runc with the same arguments.
package capfilter

import (
	"bufio"
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// capBits maps the capability names the OCI runtime spec uses ("CAP_" plus
// the kernel's name; runtime-spec v1.0.2 config.md "capabilities") to their
// bit numbers in the kernel's capability masks (include/uapi/linux/capability.h;
// capbits_linux_test.go checks every entry against golang.org/x/sys/unix,
// which is generated from that header).
var capBits = map[string]uint{
	"CAP_CHOWN": 0, "CAP_DAC_OVERRIDE": 1, "CAP_DAC_READ_SEARCH": 2, "CAP_FOWNER": 3,
	"CAP_FSETID": 4, "CAP_KILL": 5, "CAP_SETGID": 6, "CAP_SETUID": 7, "CAP_SETPCAP": 8,
	"CAP_LINUX_IMMUTABLE": 9, "CAP_NET_BIND_SERVICE": 10, "CAP_NET_BROADCAST": 11,
	"CAP_NET_ADMIN": 12, "CAP_NET_RAW": 13, "CAP_IPC_LOCK": 14, "CAP_IPC_OWNER": 15,
	"CAP_SYS_MODULE": 16, "CAP_SYS_RAWIO": 17, "CAP_SYS_CHROOT": 18, "CAP_SYS_PTRACE": 19,
	"CAP_SYS_PACCT": 20, "CAP_SYS_ADMIN": 21, "CAP_SYS_BOOT": 22, "CAP_SYS_NICE": 23,
	"CAP_SYS_RESOURCE": 24, "CAP_SYS_TIME": 25, "CAP_SYS_TTY_CONFIG": 26, "CAP_MKNOD": 27,
	"CAP_LEASE": 28, "CAP_AUDIT_WRITE": 29, "CAP_AUDIT_CONTROL": 30, "CAP_SETFCAP": 31,
	"CAP_MAC_OVERRIDE": 32, "CAP_MAC_ADMIN": 33, "CAP_SYSLOG": 34, "CAP_WAKE_ALARM": 35,
	"CAP_BLOCK_SUSPEND": 36, "CAP_AUDIT_READ": 37, "CAP_PERFMON": 38, "CAP_BPF": 39,
	"CAP_CHECKPOINT_RESTORE": 40,
}

// ParseBounding returns the CapBnd mask of a /proc/PID/status file
// (proc(5): "CapBnd: Capability bounding set", hexadecimal).
func ParseBounding(status []byte) (uint64, error) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), "CapBnd:")
		if !ok {
			continue
		}
		m, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		if err != nil {
			return 0, fmt.Errorf("CapBnd line %q of the status file is not a hexadecimal mask: %w", sc.Text(), err)
		}
		return m, nil
	}
	return 0, fmt.Errorf("the status file has no CapBnd line (is it /proc/self/status?)")
}

// Missing returns, sorted, the names of the known capabilities whose bit
// is clear in the bounding mask: the ones a container cannot be given here.
func Missing(bounding uint64) []string {
	var out []string
	for name, bit := range capBits {
		if bounding&(1<<bit) == 0 {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
