package main

import (
	"flag"
	"fmt"
	"net"
)

// pprofFlags is --pprof-bind-address: where the manager serves
// net/http/pprof (CPU and heap profiles of the operator, e.g. while
// `make bench-agents` runs). Off by default. The profiles show the
// operator's internals and the endpoint has no authentication, so it may
// bind only a loopback address (reach it with `kubectl port-forward`).
type pprofFlags struct {
	addr string
}

func (f *pprofFlags) bind(fs *flag.FlagSet) {
	fs.Func("pprof-bind-address",
		"loopback address (e.g. 127.0.0.1:6060) to serve net/http/pprof on, unauthenticated; empty (the default) serves none",
		func(s string) error {
			if err := checkLoopback(s); err != nil {
				return fmt.Errorf("--pprof-bind-address: %w", err)
			}
			f.addr = s
			return nil
		})
}

// checkLoopback accepts "" (off) and host:port whose host is localhost or
// a loopback IP.
func checkLoopback(addr string) error {
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%q is not a loopback address (127.0.0.1, ::1 or localhost): the profiles are served without authentication", addr)
}
