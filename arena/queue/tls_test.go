package queue_test

import (
	"context"
	"net"
	"testing"

	"github.com/altairalabs/omnia/arena/queue"
)

// A rediss:// URL is dialled with TLS also when the operator passes its own
// dialer (the egress guard's): the first byte the server sees is a TLS
// handshake record, not a RESP command carrying the URL's password in clear.
func TestRedissDialsTLSThroughACustomDialer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	first := make(chan byte, 1)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			b := make([]byte, 1)
			if _, err := c.Read(b); err == nil {
				select {
				case first <- b[0]:
				default:
				}
			}
			_ = c.Close()
		}
	}()
	cases := []struct {
		name   string
		dialer *net.Dialer
	}{
		{"custom-dialer", &net.Dialer{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rdb, err := queue.ConnectWith("rediss://:s3cret@"+l.Addr().String()+"/0", queue.ConnectOptions{Dialer: c.dialer})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = rdb.Close() }()
			_ = rdb.Ping(context.Background()).Err() // the handshake fails: no TLS server
			if b := <-first; b != 0x16 {
				t.Fatalf("the first byte on the wire is %q, want a TLS handshake record (0x16)", b)
			}
		})
	}
}
