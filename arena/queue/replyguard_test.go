package queue_test

import (
	"context"
	"errors"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/altairalabs/omnia/arena/queue"
	testredis "github.com/altairalabs/omnia/test/redis"
)

// hostileRedis listens on the loopback and answers the first bytes of
// every connection with reply, then closes it: a server that is not a
// Redis, as a Workspace's redis URL may name. It returns the URL and the
// number of connections it accepted.
func hostileRedis(t *testing.T, reply []byte) (string, *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	var accepted atomic.Int64
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			go func() {
				defer func() { _ = c.Close() }()
				buf := make([]byte, 4096)
				if _, err := c.Read(buf); err != nil {
					return
				}
				_, _ = c.Write(reply)
			}()
		}
	}()
	return "redis://" + l.Addr().String() + "/0", &accepted
}

// allocatedBy is how many bytes the heap allocated while f ran.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A reply header is checked before go-redis reads it: a server declaring a
// 1 GiB bulk string (the "*2\r\n$1073741824\r\n", sent with no
// payload), a huge array, a nesting deeper than MaxReplyDepth or a line that
// never ends makes the command fail with ErrReplyTooLarge, and the client
// allocates a bounded amount whatever the server declared (go-redis alone
// allocates the declared gigabyte at once, on each of its retries).
func TestHostileReplyIsRefusedBeforeItIsAllocated(t *testing.T) {
	const bound = 64 << 20 // far below the 1 GiB the header declares
	cases := []struct {
		name  string
		reply string
	}{
		{"bulk-in-array", "*2\r\n$1073741824\r\n"},
		{"bulk", "$1073741824\r\n"},
		{"blob-error", "!1073741824\r\n"},
		{"array", "*100000000\r\n"},
		{"map", "%100000000\r\n"},
		{"header-without-its-end", "*1\r\n$1073741000"},
		{"nesting", strings.Repeat("*1\r\n", queue.MaxReplyDepth+1)},
		{"endless-line", "+" + strings.Repeat("A", queue.MaxReplyBytes+1)},
		{"many-bulks", "*2\r\n$3145728\r\n" + strings.Repeat("x", 3145728) + "\r\n$3145728\r\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url, accepted := hostileRedis(t, []byte(c.reply))
			rdb, err := queue.Connect(url)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = rdb.Close() }()
			q := queue.New(rdb, "ns", "run")
			var serr error
			grew := allocatedBy(func() { _, _, serr = q.State(context.Background()) })
			if !errors.Is(serr, queue.ErrReplyTooLarge) {
				t.Fatalf("State against %q: %v, want ErrReplyTooLarge", c.name, serr)
			}
			if grew > bound {
				t.Fatalf("the client allocated %d MiB for a reply it refused (bound %d MiB)", grew>>20, bound>>20)
			}
			if accepted.Load() == 0 {
				t.Fatal("the hostile server was never dialled")
			}
		})
	}
}

// A real Redis's replies pass the guard up to MaxReplyBytes: a value just
// under it reads back whole; one over it is refused, and the client is
// usable again afterwards (the refused connection was closed, a new one is
// dialled).
func TestReplyGuardOnRealRedis(t *testing.T) {
	ctx := context.Background()
	srv := testredis.Start(t)
	rdb, err := queue.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rdb.Close() }()
	cases := []struct {
		name    string
		size    int
		refused bool
	}{
		{"under", queue.MaxReplyBytes - 1024, false},
		{"over", queue.MaxReplyBytes + 1, true},
		{"small-after-a-refusal", 10, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := strings.Repeat("v", c.size)
			if err := rdb.Set(ctx, "k", v, 0).Err(); err != nil {
				t.Fatal(err)
			}
			got, err := rdb.Get(ctx, "k").Result()
			switch {
			case c.refused && !errors.Is(err, queue.ErrReplyTooLarge):
				t.Fatalf("GET of %d bytes: %v, want ErrReplyTooLarge", c.size, err)
			case !c.refused && (err != nil || got != v):
				t.Fatalf("GET of %d bytes: %d bytes, %v", c.size, len(got), err)
			}
		})
	}
}
