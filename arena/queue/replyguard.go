package queue

import (
	"errors"
	"net"
	"sync"
)

// Bounds on what a Redis server's replies may make a client allocate. The
// Redis a run's queue lives on may be named by a Workspace (a host, a
// Service, a Secret's URL) and need not be a real Redis: go-redis allocates
// whatever a reply header declares (a "$1073741824" bulk string is a 1 GiB
// buffer before the first payload byte arrives, a "*N" array N interface
// slots) and recurses into nested aggregates. Every connection this package
// opens therefore reads through a guard that parses the RESP headers as they
// stream by and fails the read before go-redis sees a header over a bound.
const (
	// MaxReplyBytes bounds what one command's replies (a pipeline's: every
	// reply read between two writes) may declare: the sum of its bulk string
	// lengths, ReplySlotBytes per aggregate element, and the bytes of its
	// simple lines. 4 MiB is far above any reply of the queue protocol (a
	// results page is at most ResultsPageSize × MaxResultBytes, 1.6 MiB).
	MaxReplyBytes = 4 << 20
	// ReplySlotBytes is what one declared aggregate element is charged: the
	// interface value go-redis allocates for it.
	ReplySlotBytes = 16
	// MaxReplyDepth bounds the nesting of aggregates in one reply (go-redis
	// reads them recursively). The queue protocol nests at most two deep.
	MaxReplyDepth = 8
)

// ErrReplyTooLarge is returned by a read whose reply declares more than
// MaxReplyBytes or nests deeper than MaxReplyDepth. The connection is
// unusable after it; go-redis closes it.
var ErrReplyTooLarge = errors.New("the queue's Redis sent a reply over the operator's size limit")

// errReplyMalformed is returned for bytes that are no RESP reply.
var errReplyMalformed = errors.New("the queue's Redis sent bytes that are not a RESP reply")

// respState is where the guard is in the reply stream.
type respState uint8

const (
	// atType: the next byte is an element's type.
	atType respState = iota
	// inLine: inside a simple element (+ - : , # ( _) up to its newline.
	inLine
	// inLength: inside the length of a bulk or aggregate header.
	inLength
	// inPayload: inside a bulk string's payload and its CRLF.
	inPayload
)

// aggregate is an open aggregate reply: how many elements it still awaits.
type aggregate struct {
	left int64
	// attribute: a RESP3 attribute (|N), which annotates the element that
	// follows it and is not an element of its parent itself.
	attribute bool
}

// replyGuard is a net.Conn whose reads are checked against the bounds above.
// It does not expose the underlying syscall.Conn: go-redis then skips its
// idle-connection peek, which is an optimisation only.
type replyGuard struct {
	net.Conn

	mu  sync.Mutex
	err error
	// used is what the replies since the last write declared.
	used int64

	state    respState
	kind     byte
	length   int64
	negative bool
	digits   int
	payload  int64
	open     []aggregate
}

// guardReplies wraps c so that its reads fail with ErrReplyTooLarge instead
// of handing go-redis a header over the bounds.
func guardReplies(c net.Conn) net.Conn { return &replyGuard{Conn: c} }

// Write starts a new command: the budget is per command (or pipeline).
func (g *replyGuard) Write(p []byte) (int, error) {
	g.mu.Lock()
	g.used = 0
	g.mu.Unlock()
	return g.Conn.Write(p)
}

// Read reads from the connection and checks the bytes before returning
// them: a chunk that would complete a header over the bounds is not
// returned at all, so go-redis never allocates for it.
func (g *replyGuard) Read(p []byte) (int, error) {
	g.mu.Lock()
	if g.err != nil {
		err := g.err
		g.mu.Unlock()
		return 0, err
	}
	g.mu.Unlock()
	n, rerr := g.Conn.Read(p)
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.scan(p[:n]); err != nil {
		g.err = err
		return 0, err
	}
	return n, rerr
}

func (g *replyGuard) charge(n int64) error {
	g.used += n
	if g.used > MaxReplyBytes {
		return ErrReplyTooLarge
	}
	return nil
}

// scan advances the RESP parser over p.
func (g *replyGuard) scan(p []byte) error {
	for i := 0; i < len(p); i++ {
		b := p[i]
		switch g.state {
		case atType:
			g.kind = b
			switch b {
			case '+', '-', ':', ',', '#', '(', '_':
				g.state = inLine
			case '$', '=', '!', '*', '%', '~', '|', '>':
				g.state, g.length, g.negative, g.digits = inLength, 0, false, 0
			default:
				return errReplyMalformed
			}
			if err := g.charge(1); err != nil {
				return err
			}
		case inLine:
			if err := g.charge(1); err != nil {
				return err
			}
			if b == '\n' {
				g.state = atType
				g.complete()
			}
		case inLength:
			if err := g.charge(1); err != nil {
				return err
			}
			if err := g.lengthByte(b); err != nil {
				return err
			}
		case inPayload:
			n := min(int64(len(p)-i), g.payload)
			i += int(n) - 1
			g.payload -= n
			if g.payload == 0 {
				g.state = atType
				g.complete()
			}
		}
	}
	return nil
}

// lengthByte reads one byte of a header's length. The declared size is
// checked digit by digit, so a length over the bounds fails before its line
// ends (and before go-redis could parse it).
func (g *replyGuard) lengthByte(b byte) error {
	switch {
	case b >= '0' && b <= '9':
		if g.negative && g.digits > 0 {
			return errReplyMalformed // only -1 is negative
		}
		g.length = g.length*10 + int64(b-'0')
		g.digits++
		if g.declared(g.length) > MaxReplyBytes-g.used {
			return ErrReplyTooLarge
		}
	case b == '-' && g.digits == 0 && !g.negative:
		g.negative = true
	case b == '\r' && g.digits > 0:
	case b == '\n' && g.digits > 0:
		return g.endHeader()
	default:
		return errReplyMalformed
	}
	return nil
}

// declared is what a header of length n costs: its bytes for a bulk
// string, ReplySlotBytes per element for an aggregate (two per map entry).
func (g *replyGuard) declared(n int64) int64 {
	switch g.kind {
	case '$', '=', '!':
		return n
	case '%', '|':
		return 2 * n * ReplySlotBytes
	}
	return n * ReplySlotBytes
}

func (g *replyGuard) endHeader() error {
	g.state = atType
	if g.negative {
		if g.length != 1 {
			return errReplyMalformed
		}
		g.complete() // -1: a RESP2 nil
		return nil
	}
	if err := g.charge(g.declared(g.length)); err != nil {
		return err
	}
	switch g.kind {
	case '$', '=', '!':
		g.state, g.payload = inPayload, g.length+2
		return nil
	}
	count := g.length
	if g.kind == '%' || g.kind == '|' {
		count *= 2
	}
	if count == 0 {
		if g.kind != '|' {
			g.complete()
		}
		return nil
	}
	if len(g.open) >= MaxReplyDepth {
		return ErrReplyTooLarge
	}
	g.open = append(g.open, aggregate{left: count, attribute: g.kind == '|'})
	return nil
}

// complete records that an element ended: it counts against the aggregate
// it belongs to, closing every aggregate it was the last element of.
func (g *replyGuard) complete() {
	for len(g.open) > 0 {
		top := &g.open[len(g.open)-1]
		top.left--
		if top.left > 0 {
			return
		}
		attribute := top.attribute
		g.open = g.open[:len(g.open)-1]
		if attribute {
			return // the annotated element follows
		}
	}
}
