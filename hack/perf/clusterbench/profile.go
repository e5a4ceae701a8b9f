package clusterbench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Profiling the operator during a run: the operator serves net/http/pprof
// on a free loopback port (--pprof-bind-address), the benchmark takes a CPU
// profile of the ramp and a heap profile once everything converged, and
// leaves both in its logs directory (`go tool pprof -top <logs>/cpu.pprof`).

// FreeLoopbackAddr returns a loopback host:port nothing listens on now.
func FreeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// SaveProfile GETs /debug/pprof/<name>?<query> from the operator's pprof
// address into dir/<file>.
func SaveProfile(ctx context.Context, addr, name, query, dir, file string) error {
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

// ProfileCPU takes a CPU profile of d (the ramp) in the background; the
// returned channel yields its outcome.
func ProfileCPU(ctx context.Context, addr, dir string, d time.Duration) <-chan error {
	done := make(chan error, 1)
	go func() {
		done <- SaveProfile(ctx, addr, "profile", fmt.Sprintf("seconds=%d", int(d.Seconds())), dir, "cpu.pprof")
	}()
	return done
}

// maxTopLines bounds the profile summary a report quotes.
const maxTopLines = 40

// Top is `go tool pprof -top` of a saved profile, its first n lines (the
// header and the heaviest functions), for a report's notes.
func Top(ctx context.Context, path string, n int) ([]string, error) {
	n = min(n, maxTopLines)
	cmd := exec.CommandContext(ctx, "go", "tool", "pprof", "-top", "-nodecount="+strconv.Itoa(n), path)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go tool pprof -top %s: %w", path, err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	return lines[:min(len(lines), n+6)], nil
}
