package main

import "testing"

// TestPprofOnlyOnLoopback: --pprof-bind-address serves unauthenticated
// profiles, so only a loopback address (or none) is accepted.
func TestPprofOnlyOnLoopback(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"", true},
		{"127.0.0.1:6060", true},
		{"[::1]:6060", true},
		{"localhost:6060", true},
		{":6060", false},
		{"0.0.0.0:6060", false},
		{"10.0.0.5:6060", false},
		{"127.0.0.1", false},
	} {
		if err := checkLoopback(tc.addr); (err == nil) != tc.ok {
			t.Errorf("checkLoopback(%q) = %v, want ok=%v", tc.addr, err, tc.ok)
		}
	}
}
