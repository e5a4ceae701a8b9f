package faults

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// echoBackend answers each line with its name and the line.
type echoBackend struct {
	name string
	ln   net.Listener
}

func startEcho(t *testing.T, name string) *echoBackend {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &echoBackend{name: name, ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if _, err := fmt.Fprintf(c, "%s:%s", name, line); err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return b
}

// ask opens a connection through the front and returns who answered
// ("" when the front closed it).
func ask(t *testing.T, addr string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "ping\n"); err != nil {
		return ""
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return ""
	}
	return line
}

func TestFrontSpreadsConnectionsAndFailsOver(t *testing.T) {
	a, b := startEcho(t, "a"), startEcho(t, "b")
	f, err := NewFront("127.0.0.1:0", []string{a.ln.Addr().String(), b.ln.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	seen := map[string]int{}
	for range 6 {
		seen[ask(t, f.Addr())]++
	}
	if seen["a:ping\n"] != 3 || seen["b:ping\n"] != 3 {
		t.Fatalf("answers over 6 connections: %v, want 3 each", seen)
	}

	// One replica dies: every connection goes to the other.
	_ = a.ln.Close()
	for i := range 4 {
		if got := ask(t, f.Addr()); got != "b:ping\n" {
			t.Fatalf("connection %d after a died: %q, want b", i, got)
		}
	}
	served, refused := f.Served()
	if served[b.ln.Addr().String()] != 7 || served[a.ln.Addr().String()] != 3 || refused != 0 {
		t.Fatalf("Served = %v, refused %d", served, refused)
	}

	// Both dead: the front closes the connection, and counts it.
	_ = b.ln.Close()
	if got := ask(t, f.Addr()); got != "" {
		t.Fatalf("an answer with no backend: %q", got)
	}
	if _, refused := f.Served(); refused != 1 {
		t.Fatalf("refused = %d, want 1", refused)
	}
}

func TestFrontCloseEndsForwardedConnections(t *testing.T) {
	a := startEcho(t, "a")
	f, err := NewFront("127.0.0.1:0", []string{a.ln.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", f.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "ping\n"); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	if line, err := r.ReadString('\n'); err != nil || line != "a:ping\n" {
		t.Fatalf("answer %q, %v", line, err)
	}
	closed := make(chan error, 1)
	go func() { closed <- f.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = wait.PollUntilContextCancel(ctx, 10*time.Millisecond, true, func(context.Context) (bool, error) {
		select {
		case err := <-closed:
			if err != nil {
				t.Errorf("Close: %v", err)
			}
			return true, nil
		default:
			return false, nil
		}
	})
	if err != nil {
		t.Fatal("Close did not return while a connection was open")
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := r.ReadString('\n'); err == nil {
		t.Fatal("the forwarded connection is still open after Close")
	}
}
