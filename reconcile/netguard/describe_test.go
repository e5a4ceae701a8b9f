package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// TestDescribe: each class of dial error is named, and the error's own
// text (the address dialled, the resolver's words) is not repeated.
func TestDescribe(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	_ = l.Close()
	ctx := context.Background()
	_, refused := net.Dial("tcp", closed)
	_, blocked := NewDialer(nil).DialContext(ctx, "tcp", "169.254.169.254:80")
	short, cancel := context.WithTimeout(ctx, time.Nanosecond)
	defer cancel()
	<-short.Done()
	_, timedOut := (&net.Dialer{}).DialContext(short, "tcp", closed)
	dnsErr := &net.DNSError{Err: "no such host", Name: "db-7.corp.example", IsNotFound: true}
	cases := []struct {
		name string
		err  error
		says string
	}{
		{"refused", refused, "connection refused"},
		{"egress guard", blocked, "egress guard"},
		{"time bound", timedOut, "time bound"},
		{"name not found", fmt.Errorf("Get x: %w", dnsErr), "does not resolve"},
		{"anything else", errors.New("HTTP 500: internal-secret db-7.corp.example"), "the request failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil {
				t.Fatal("no error to describe")
			}
			got := Describe(tc.err)
			if !strings.Contains(got, tc.says) || strings.Contains(got, closed) || strings.Contains(got, "db-7") || strings.Contains(got, "169.254") {
				t.Errorf("Describe(%v) = %q, want %q and none of the error's text", tc.err, got, tc.says)
			}
		})
	}
}
