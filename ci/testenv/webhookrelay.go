package testenv

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// webhookRelay stands where the chart's Service hami-scheduler:443 sends
// the API server's webhook calls to HAMi's pod: it listens on
// webhookListenIP, which only the webhook's ExternalName Service names (so
// every connection to it was dialled by the konnectivity agent), and relays
// each connection's bytes unchanged to HAMi's one --http_bind on 127.0.0.1,
// where kube-scheduler calls the extender directly — as HAMi's chart has
// kube-scheduler call 127.0.0.1:443 inside the pod. TLS passes through
// untouched: HAMi (or the double) terminates it with its own certificate.
// It counts what it relays, for Env.Tunnel, whichever HAMi runs behind it.
type webhookRelay struct {
	ln     net.Listener
	target string // 127.0.0.1:<HAMi's --http_bind port>, set before the first accept

	conns atomic.Int64 // connections accepted
	bytes atomic.Int64 // bytes received from the dialling side

	mu     sync.Mutex
	open   map[net.Conn]struct{}
	closed bool
}

func newWebhookRelay(ln net.Listener) *webhookRelay {
	return &webhookRelay{ln: ln, open: map[net.Conn]struct{}{}}
}

// serve accepts until Close; run it once target is set.
func (r *webhookRelay) serve(log func(msg string, args ...any)) {
	for {
		c, err := r.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				log("webhook relay stopped", "err", err)
			}
			return
		}
		r.conns.Add(1)
		go r.relay(c, log)
	}
}

func (r *webhookRelay) relay(down net.Conn, log func(msg string, args ...any)) {
	up, err := net.Dial("tcp", r.target)
	if err != nil {
		log("webhook relay: HAMi's --http_bind does not answer", "target", r.target, "err", err)
		down.Close()
		return
	}
	if !r.track(down, up) {
		return
	}
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, countingReader{down, &r.bytes}); done <- struct{}{} }()
	go func() { _, _ = io.Copy(down, up); done <- struct{}{} }()
	<-done // either side ending ends the connection
	r.untrack(down, up)
	<-done
}

func (r *webhookRelay) track(cs ...net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	for _, c := range cs {
		r.open[c] = struct{}{}
	}
	return true
}

func (r *webhookRelay) untrack(cs ...net.Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range cs {
		c.Close()
		delete(r.open, c)
	}
}

// Close stops accepting and ends every relayed connection.
func (r *webhookRelay) Close() error {
	r.mu.Lock()
	r.closed = true
	for c := range r.open {
		c.Close()
	}
	r.mu.Unlock()
	if err := r.ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("webhook relay: %w", err)
	}
	return nil
}

// countingReader counts bytes as they pass, so a long-lived connection's
// traffic shows before it closes.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}
