// Package dnstest serves A records from a function on a local UDP socket,
// for tests that dial host names (a Service's <name>.<namespace>.svc) on a
// machine without cluster DNS. The resolver it returns asks only that
// server, so the code under test resolves as it would in a cluster and its
// egress guard sees the resolved address.
package dnstest

import (
	"context"
	"encoding/binary"
	"net"
	"strings"
	"testing"
)

// Answer returns the A record of a fully qualified, lower-case name ending
// in a dot ("redis.team-a.svc."), or false for no answer.
type Answer func(name string) ([4]byte, bool)

// Start serves answer until t ends and returns a resolver that asks only
// it. AAAA queries and unanswered names get an empty answer (the resolver
// then reports no such host).
func Start(t testing.TB, answer Answer) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("dnstest: listen: %v", err)
	}
	t.Cleanup(func() { _ = pc.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if resp := reply(buf[:n], answer); resp != nil {
				_, _ = pc.WriteTo(resp, from)
			}
		}
	}()
	addr := pc.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}
}

// reply builds the response to a one-question query (RFC 1035 4.1).
func reply(q []byte, answer Answer) []byte {
	if len(q) < 12 {
		return nil
	}
	// Question: labels up to a zero byte, then QTYPE and QCLASS.
	i := 12
	var name strings.Builder
	for i < len(q) && q[i] != 0 {
		l := int(q[i])
		if i+1+l > len(q) {
			return nil
		}
		name.Write(q[i+1 : i+1+l])
		name.WriteByte('.')
		i += 1 + l
	}
	if i+5 > len(q) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(q[i+1:])
	question := q[12 : i+5]
	ip, ok := answer(strings.ToLower(name.String()))
	an := uint16(0)
	if ok && qtype == 1 {
		an = 1
	}
	resp := make([]byte, 12, 64)
	copy(resp, q[:2])                            // ID
	binary.BigEndian.PutUint16(resp[2:], 0x8180) // response, recursion desired and available, no error
	binary.BigEndian.PutUint16(resp[4:], 1)      // QDCOUNT
	binary.BigEndian.PutUint16(resp[6:], an)     // ANCOUNT
	resp = append(resp, question...)
	if an == 1 {
		resp = append(resp, 0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4) // name pointer, A, IN, TTL 60, RDLENGTH 4
		resp = append(resp, ip[:]...)
	}
	return resp
}
