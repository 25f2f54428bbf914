package nettest

import (
	"crypto/tls"
	"errors"
	"net"
	"syscall"
	"testing"
	"time"
)

func TestSilentServerNeverAnswersTLS(t *testing.T) {
	addr := SilentServer(t)
	// A TLS server on loopback answers a handshake within milliseconds;
	// a quarter second of silence tells them apart.
	d := &net.Dialer{Timeout: 250 * time.Millisecond}
	c, err := tls.DialWithDialer(d, "tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err == nil {
		c.Close()
		t.Fatal("TLS handshake with the silent server succeeded")
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("err = %v, want a timeout (the server accepts and stays silent)", err)
	}
}

func TestRefusingAddrRefuses(t *testing.T) {
	_, err := net.DialTimeout("tcp", RefusingAddr(t), time.Second)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial err = %v, want connection refused", err)
	}
}
