package testenv

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/testenv/hamidouble"
)

// checkOtherLocalUserRefused: another user of the machine (nobody), who can
// connect to every loopback listener of the environment, can neither read
// the shared etcd (plain HTTP or TLS without a certificate of the etcd CA)
// nor set a double's faults without its token, nor read the token or the
// etcd keys from the work dir. The same etcd request with the API servers'
// certificate, and the same double route with the token, succeed: what
// refuses nobody is the missing credential, not a malformed request.
func checkOtherLocalUserRefused(t *testing.T, e *Env) {
	nobody := otherUser(t)
	tenant := e.order[0]
	body := fmt.Sprintf(`{"key":%q,"range_end":%q,"keys_only":true}`,
		base64.StdEncoding.EncodeToString([]byte("/"+tenant+"/")),
		base64.StdEncoding.EncodeToString(prefixEnd([]byte("/"+tenant+"/"))))
	rangeURL := e.etcdURL + "/v3/kv/range"

	out, err := curl(t, nil, "--cacert", e.etcdTLS.caFile, "--cert", e.etcdTLS.clientCert, "--key", e.etcdTLS.clientKey, "-X", "POST", "-d",
		body, rangeURL)
	if err != nil || !strings.Contains(out, `"kvs"`) {
		t.Fatalf("the API servers' certificate cannot range-read etcd (the check below would prove nothing): %v\n%s", err, out)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"plain HTTP", []string{strings.Replace(rangeURL, "https://", "http://", 1)}},
		{"TLS without a client certificate", []string{"--insecure", rangeURL}},
	} {
		out, err := curl(t, nobody, append([]string{"-X", "POST", "-d", body}, c.args...)...)
		if err == nil || strings.Contains(out, `"kvs"`) {
			t.Errorf("nobody range-read etcd over %s: %v\n%s", c.name, err, out)
		}
	}

	tn := e.tenants[tenant]
	faultsURL := fmt.Sprintf("http://127.0.0.1:%d%sfaults", tn.metricsPort, hamidouble.AdminPrefix)
	out, err = curl(t, nobody, "-X", "PUT", "-d", `{"IgnoreMemory":true}`, faultsURL)
	if err == nil || !strings.Contains(out, "401") {
		t.Errorf("nobody's fault PUT without the token was not refused with 401: %v\n%s", err, out)
	}
	s, err := e.Double(tenant).State()
	if err != nil {
		t.Fatalf("the environment's own client (with the token) cannot read the double's state: %v", err)
	}
	if s.Faults != (hamidouble.Faults{}) {
		t.Errorf("after nobody's refused PUT the double has faults %+v", s.Faults)
	}

	// KWOK's server has no client authentication (startKWOK): it runs
	// without one, so its process listens on no port at all.
	if ports := listeningPorts(t, tn.kwok.pid()); len(ports) > 0 {
		t.Errorf("KWOK of %s listens on ports %v, which any local user can reach without credentials", tenant, ports)
	}

	for _, f := range []string{tn.path("double-admin.token"), e.etcdTLS.clientKey, e.etcdTLS.serverKey} {
		cmd := exec.Command("cat", f)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: nobody}
		if b, err := cmd.CombinedOutput(); err == nil {
			t.Errorf("nobody read %s (%d bytes)", f, len(b))
		}
	}
}

// listeningPorts are the TCP ports pid has listening sockets on.
func listeningPorts(t *testing.T, pid int) []int {
	t.Helper()
	dir := "/proc/" + strconv.Itoa(pid)
	fds, err := os.ReadDir(dir + "/fd")
	if err != nil {
		t.Fatalf("file descriptors of pid %d: %v", pid, err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		if l, err := os.Readlink(dir + "/fd/" + fd.Name()); err == nil {
			if ino, ok := socketInode(l); ok {
				inodes[ino] = true
			}
		}
	}
	var out []int
	for _, table := range listenerTables(dir) {
		for port, inos := range table {
			for _, ino := range inos {
				if inodes[ino] {
					out = append(out, port)
				}
			}
		}
	}
	return out
}

// otherUser is the credential of user nobody; running a process as
// another user needs root.
func otherUser(t *testing.T) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("runs curl as user nobody, which needs root")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("needs curl to make the requests as another user")
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Fatalf("no user nobody to act as another local user: %v", err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		t.Fatal(err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		t.Fatal(err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
}

// curl runs curl (as cred unless nil) and returns what it printed and the
// HTTP status; an error for a transport failure or a status ≥ 400.
func curl(t *testing.T, cred *syscall.Credential, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "curl",
		append([]string{"--silent", "--show-error", "--fail-with-body", "--max-time", "20", "--write-out", "\nHTTP %{http_code}"}, args...)...)
	cmd.Dir = filepath.Dir(os.DevNull) // nobody may not enter the test's directory
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	b, err := cmd.CombinedOutput()
	return string(b), err
}
