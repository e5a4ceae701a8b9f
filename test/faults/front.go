// Package faults is the fault-injection scenario (a stream of creates and
// updates while the operator's replicas are killed and restarted), shared by
// `make perf-faults` (hack/perf/faults; PERF_QUICK=1 for its quick
// variant, which is too slow for make test): a steady stream of creates and updates, valid and
// invalid, against the local cluster with two operator replicas behind a
// TCP front, while kube-apiserver, etcd and the operator leader are killed;
// then every object's status is compared with a run of the same stream
// without faults, and every stored object is re-checked with the rule
// library.
package faults

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Front is what a Service in front of the operator's Deployment is to the
// API server: one address, connections spread over the replicas, and a
// connection to a replica that does not answer goes to the next one. It
// forwards TCP, so TLS runs end to end between the API server and the
// replica (both replicas serve the same certificate).
type Front struct {
	ln       net.Listener
	backends []string
	next     atomic.Uint64
	// slots bounds the connections forwarded at once.
	slots chan struct{}
	// DialTimeout is how long a replica gets to accept a connection.
	DialTimeout time.Duration

	mu      sync.Mutex
	served  map[string]int
	refused int
	wg      sync.WaitGroup
	conns   map[net.Conn]struct{}
	closed  bool
}

// maxFrontConnections bounds the connections the front forwards at once:
// the API server keeps a few long-lived ones per webhook.
const maxFrontConnections = 256

// NewFront listens on addr (the address the webhooks are registered at)
// and forwards each connection to one of backends.
func NewFront(addr string, backends []string) (*Front, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	f := &Front{
		ln:          ln,
		backends:    append([]string(nil), backends...),
		slots:       make(chan struct{}, maxFrontConnections),
		DialTimeout: time.Second,
		served:      map[string]int{},
		conns:       map[net.Conn]struct{}{},
	}
	f.wg.Add(1)
	go f.serve()
	return f, nil
}

// Addr is the address the front listens on.
func (f *Front) Addr() string { return f.ln.Addr().String() }

// Served returns how many connections each backend took, and how many the
// front had to close because no backend answered.
func (f *Front) Served() (map[string]int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]int, len(f.served))
	for k, v := range f.served {
		out[k] = v
	}
	return out, f.refused
}

func (f *Front) serve() {
	defer f.wg.Done()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.slots <- struct{}{}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			defer func() { <-f.slots }()
			f.forward(c)
		}()
	}
}

// forward connects c to the first backend that accepts, starting from the
// next in turn, and copies both ways until either side closes.
func (f *Front) forward(c net.Conn) {
	defer c.Close()
	start := f.next.Add(1)
	var b net.Conn
	var chosen string
	for i := range f.backends {
		addr := f.backends[(int(start)+i)%len(f.backends)]
		conn, err := net.DialTimeout("tcp", addr, f.DialTimeout)
		if err == nil {
			b, chosen = conn, addr
			break
		}
	}
	f.mu.Lock()
	if b == nil || f.closed {
		f.refused++
		f.mu.Unlock()
		if b != nil {
			_ = b.Close()
		}
		return
	}
	f.served[chosen]++
	f.conns[c], f.conns[b] = struct{}{}, struct{}{}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.conns, c)
		delete(f.conns, b)
		f.mu.Unlock()
		_ = b.Close()
	}()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		// Half-close so the other direction can finish its last bytes;
		// a full close follows when both are done.
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go pipe(b, c)
	go pipe(c, b)
	<-done
	<-done
}

// Close stops accepting, closes every forwarded connection and waits.
func (f *Front) Close() error {
	err := f.ln.Close()
	f.mu.Lock()
	f.closed = true
	for c := range f.conns {
		_ = c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}
