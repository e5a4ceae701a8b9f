// Package redis starts a private redis-server for one test: on a free
// loopback port, with its own temporary directory, no persistence, stopped
// when the test ends. Never a shared server. redis-server is Debian's
// package, installed by hack/ensure-redis.sh (`make test`'s prerequisite).
package redis

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Server is a running redis-server.
type Server struct {
	// Addr is host:port on the loopback interface.
	Addr string
	// Password is the default user's password ("" for none: anyone on
	// the loopback interface is the default user).
	Password string
	cmd      *exec.Cmd
}

// URL is the server's redis:// URL (database 0), with the default user's
// password when it has one.
func (s *Server) URL() string {
	if s.Password != "" {
		return "redis://:" + s.Password + "@" + s.Addr + "/0"
	}
	return "redis://" + s.Addr + "/0"
}

// Start starts a redis-server for t and stops it in t.Cleanup. It fails
// the test when redis-server is not installed (run hack/ensure-redis.sh).
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redis-server not found: run hack/ensure-redis.sh (make redis): %v", err)
	}
	s, err := StartIn(bin, t.TempDir())
	if err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// StartWithPassword is Start with the default user protected by password
// (requirepass), as a production Redis whose admin is the operator: only
// a client with a credential gets in.
func StartWithPassword(t testing.TB, password string) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redis-server not found: run hack/ensure-redis.sh (make redis): %v", err)
	}
	s, err := startIn(bin, t.TempDir(), password)
	if err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// StartIn starts the redis-server binary bin with its files in dir, on a
// free loopback port (`make run` uses it under .local/redis). Stop it with
// Stop.
func StartIn(bin, dir string) (*Server, error) { return startIn(bin, dir, "") }

// StartInWithPassword is StartIn with the default user protected by
// password (see StartWithPassword).
func StartInWithPassword(bin, dir, password string) (*Server, error) {
	return startIn(bin, dir, password)
}

func startIn(bin, dir, password string) (*Server, error) {
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("free port: %w", err)
		}
		s, err := start(bin, dir, port, password)
		if err == nil {
			return s, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

// Stop kills the server and waits for it.
func (s *Server) Stop() { s.stop() }

func start(bin, dir string, port int, password string) (*Server, error) {
	logPath := filepath.Join(dir, "redis-"+strconv.Itoa(port)+".log")
	args := []string{
		"--bind", "127.0.0.1",
		"--port", strconv.Itoa(port),
		"--dir", dir,
		"--save", "",
		"--appendonly", "no",
		"--protected-mode", "yes",
		"--logfile", logPath,
		"--daemonize", "no",
	}
	if password != "" {
		args = append(args, "--requirepass", password)
	}
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{Addr: "127.0.0.1:" + strconv.Itoa(port), Password: password, cmd: cmd}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if ping(s.Addr) == nil {
			return s, nil
		}
		if cmd.ProcessState != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.stop()
	logText, _ := os.ReadFile(logPath)
	return nil, fmt.Errorf("redis-server on %s did not answer PING: %s", s.Addr, strings.TrimSpace(string(logText)))
}

func (s *Server) stop() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		_, _ = s.cmd.Process.Wait()
	}
}

func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return err
	}
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	// A server with requirepass answers NOAUTH: it is up.
	if !strings.HasPrefix(line, "+PONG") && !strings.HasPrefix(line, "-NOAUTH") {
		return fmt.Errorf("unexpected reply %q", line)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}
