package testenv

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"syscall"
)

// Listening sockets are asked of the kernel through sock_diag(7) rather than
// read from /proc/<pid>/net/tcp: the kernel then sends only sockets in
// LISTEN state (a few dozen), where the /proc tables print every TCP socket
// of the machine. While ci/test/e2e runs there are about 1200 of them, and each
// starting component is polled every 25 ms (waitBound), so those tables were
// the largest part of the test binaries' CPU (ci/testenv's
// profile: 3.3 of 6.2 sampled seconds, nearly all of it in read(2)).
//
// Layouts from linux/sock_diag.h and linux/inet_diag.h (uapi, stable ABI):
//
//	struct inet_diag_req_v2 { u8 family, protocol, ext, pad; u32 states; struct inet_diag_sockid id; }
//	struct inet_diag_sockid { be16 sport, dport; be32 src[4], dst[4]; u32 if; u32 cookie[2]; }   // 48 bytes
//	struct inet_diag_msg    { u8 family, state, timer, retrans; struct inet_diag_sockid id;
//	                          u32 expires, rqueue, wqueue, uid, inode; }                           // 72 bytes
const (
	netlinkSockDiag  = 4  // NETLINK_SOCK_DIAG
	sockDiagByFamily = 20 // SOCK_DIAG_BY_FAMILY
	tcpListen        = 10 // TCP_LISTEN (include/net/tcp_states.h)
	diagReqLen       = 56 // sizeof(struct inet_diag_req_v2)
	diagMsgLen       = 72 // sizeof(struct inet_diag_msg)
	diagMsgSport     = 4  // offsetof(struct inet_diag_msg, id.idiag_sport)
	diagMsgInode     = 68 // offsetof(struct inet_diag_msg, idiag_inode)
)

// errNoSockDiag marks a kernel without sock_diag for TCP (inet_diag not
// built or loaded); listensOn then reads the /proc tables.
var errNoSockDiag = errors.New("sock_diag for TCP is not available")

// diagListeners returns, for each local port with TCP sockets in LISTEN
// state in this process's network namespace (the one its children share),
// their inodes — what listeningSockets reads from a /proc table.
func diagListeners() (map[int][]string, error) {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC, netlinkSockDiag)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errNoSockDiag, err)
	}
	defer syscall.Close(fd)
	out := map[int][]string{}
	for _, family := range []uint8{syscall.AF_INET, syscall.AF_INET6} {
		if err := diagDump(fd, family, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// diagBuffers keeps receive buffers across calls: clearing a fresh one per
// call cost as much CPU as the kernel's answer. 32 KiB holds the largest
// part of a dump the kernel sends in one message (netlink_dump: at most
// 32 KiB, and NLMSG_GOODSIZE when the reader's buffer is smaller).
var diagBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// diagDump asks for one address family's listening TCP sockets and adds
// them to out.
func diagDump(fd int, family uint8, out map[int][]string) error {
	req := make([]byte, syscall.NLMSG_HDRLEN+diagReqLen)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], sockDiagByFamily)
	ne.PutUint16(req[6:], syscall.NLM_F_REQUEST|syscall.NLM_F_DUMP)
	body := req[syscall.NLMSG_HDRLEN:]
	body[0] = family
	body[1] = syscall.IPPROTO_TCP
	ne.PutUint32(body[4:], 1<<tcpListen)
	if err := syscall.Sendto(fd, req, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return fmt.Errorf("%w: send: %w", errNoSockDiag, err)
	}
	bp := diagBuffers.Get().(*[]byte)
	defer diagBuffers.Put(bp)
	buf := *bp
	for {
		n, _, err := syscall.Recvfrom(fd, buf, 0)
		if err != nil {
			return fmt.Errorf("sock_diag: receive: %w", err)
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return fmt.Errorf("sock_diag: %w", err)
		}
		for _, m := range msgs {
			switch m.Header.Type {
			case syscall.NLMSG_DONE:
				return nil
			case syscall.NLMSG_ERROR:
				// struct nlmsgerr starts with a negative errno; ENOENT
				// or EINVAL is a kernel without inet_diag for TCP.
				if len(m.Data) >= 4 {
					if errno := -int32(ne.Uint32(m.Data)); errno != 0 {
						return fmt.Errorf("%w: %w", errNoSockDiag, syscall.Errno(errno))
					}
				}
				return nil
			case sockDiagByFamily:
				if len(m.Data) < diagMsgLen {
					return fmt.Errorf("sock_diag: a %d-byte answer, want %d", len(m.Data), diagMsgLen)
				}
				port := int(binary.BigEndian.Uint16(m.Data[diagMsgSport:]))
				inode := ne.Uint32(m.Data[diagMsgInode:])
				out[port] = append(out[port], strconv.FormatUint(uint64(inode), 10))
			}
		}
	}
}
