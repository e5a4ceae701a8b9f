package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// Profiling the operator during the run (-profile): the operator serves
// net/http/pprof on a free loopback port (--pprof-bind-address), the
// benchmark takes a CPU profile of the ramp to Running and a heap profile
// once every agent is Running, and leaves both in the logs directory
// (`go tool pprof -top <logs>/cpu.pprof`).

// freeLoopbackAddr returns a loopback host:port nothing listens on now.
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// saveProfile GETs /debug/pprof/<name>?<query> from the operator's pprof
// address into dir/<file>.
func saveProfile(ctx context.Context, addr, name, query, dir, file string) error {
	url := fmt.Sprintf("http://%s/debug/pprof/%s?%s", addr, name, query)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d", url, resp.StatusCode)
	}
	f, err := os.Create(filepath.Join(dir, file))
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// profileCPU takes a CPU profile of d (the ramp) in the background; the
// returned channel yields its outcome.
func profileCPU(ctx context.Context, addr, dir string, d time.Duration) <-chan error {
	done := make(chan error, 1)
	go func() {
		done <- saveProfile(ctx, addr, "profile", fmt.Sprintf("seconds=%d", int(d.Seconds())), dir, "cpu.pprof")
	}()
	return done
}
