package netguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/altairalabs/omnia/test/dnstest"
)

func TestBlocked(t *testing.T) {
	cases := []struct {
		addr    string
		blocked bool
	}{
		{"169.254.169.254", true},
		{"169.254.0.23", true},
		{"169.254.1.1", true},
		{"fe80::1", true},
		{"fe80::1%eth0", true},
		{"febf::1", true},
		{"fd00:ec2::254", true},
		{"100.100.100.200", true},
		{"fd20:ce::254", true},
		{"169.254.170.2", true},
		{"::ffff:169.254.169.254", true},
		{"64:ff9b::a9fe:a9fe", true},
		{"127.0.0.1", false},
		{"::1", false},
		{"10.0.0.1", false},
		{"100.100.100.201", false},
		{"169.253.255.255", false},
		{"169.255.0.1", false},
		{"fec0::1", false},
		{"fd00:ec2::253", false},
		{"2606:4700::1111", false},
		{"64:ff9b::a01:101", false},
	}
	for _, tc := range cases {
		if got := Blocked(netip.MustParseAddr(tc.addr)); got != tc.blocked {
			t.Errorf("Blocked(%s) = %v, want %v", tc.addr, got, tc.blocked)
		}
	}
}

func TestControl(t *testing.T) {
	cases := []struct {
		address string
		refused bool
	}{
		{"169.254.169.254:80", true},
		{"[fe80::1%eth0]:443", true},
		{"[fd00:ec2::254]:80", true},
		{"100.100.100.200:80", true},
		{"not-an-address", true},
		{"127.0.0.1:8080", false},
		{"[::1]:443", false},
	}
	for _, tc := range cases {
		err := Control("tcp", tc.address, nil)
		var be *BlockedError
		if got := errors.As(err, &be); got != tc.refused {
			t.Errorf("Control(%s) = %v, want refused %v", tc.address, err, tc.refused)
		}
	}
}

// TestDialerRefusesAHostNameResolvingToMetadata: the guard runs after DNS. A
// host name whose A record is 169.254.169.254 is refused by the Control hook,
// before connect, while a name resolving to a loopback listener connects.
func TestDialerRefusesAHostNameResolvingToMetadata(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			_ = c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())

	resolver := startDNS(t, map[string][4]byte{
		"metadata.attacker.test.": {169, 254, 169, 254},
		"alibaba.attacker.test.":  {100, 100, 100, 200},
		"tools.tenant.test.":      {127, 0, 0, 1},
	})
	d := NewDialer(resolver)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	for _, host := range []string{"metadata.attacker.test", "alibaba.attacker.test"} {
		conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(host, "80"))
		if conn != nil {
			_ = conn.Close()
		}
		var be *BlockedError
		if !errors.As(err, &be) {
			t.Fatalf("dial %s = %v, want a BlockedError", host, err)
		}
		if !strings.Contains(err.Error(), "refused by the operator's egress guard") {
			t.Errorf("dial %s error %q does not say why", host, err)
		}
	}

	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort("tools.tenant.test", port))
	if err != nil {
		t.Fatalf("dial of an allowed name: %v", err)
	}
	_ = conn.Close()
	if accepted.Load() > 1 {
		t.Errorf("listener accepted %d connections, want at most the allowed one", accepted.Load())
	}
}

// TestTransportRefusesMetadata: an HTTP request through NewTransport to the
// metadata address fails with the guard's error.
func TestTransportRefusesMetadata(t *testing.T) {
	client := &http.Client{Transport: NewTransport(nil)}
	for _, target := range []string{"http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/latest/meta-data/", "https://100.100.100.200/"} {
		resp, err := client.Get(target)
		if resp != nil {
			_ = resp.Body.Close()
		}
		var be *BlockedError
		if !errors.As(err, &be) {
			t.Errorf("GET %s = %v, want a BlockedError", target, err)
		}
	}
	if NewTransport(nil).Proxy != nil {
		t.Error("NewTransport uses a proxy: the guard would only see the proxy's address")
	}
}

// startDNS serves A records from answers (test/dnstest) and returns a
// resolver that asks only it.
func startDNS(t *testing.T, answers map[string][4]byte) *net.Resolver {
	return dnstest.Start(t, func(name string) ([4]byte, bool) {
		ip, ok := answers[name]
		return ip, ok
	})
}
