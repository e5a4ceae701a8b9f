package gittest

// Hand-built packs, for tests of what a hostile server can send: objects
// whose declared size is what the test says (a blob of zeros of any size,
// compressed as it is written, never held), and OFS deltas whose
// instructions the test writes. A repository built with go-git and served
// by Serve cannot hold those without holding their content.

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"hash/crc32"
	"io"
	"strconv"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Pack is a pack being built: Add* append objects, Bytes encodes it and
// Index writes its .idx.
type Pack struct {
	objs []packObject
	// offsets, crcs and sum are Bytes' (for Index).
	offsets []int64
	crcs    []uint32
	sum     plumbing.Hash
}

type packObject struct {
	typ plumbing.ObjectType
	// content, or zeros bytes of 0 (streamed).
	content []byte
	zeros   int64
	// base and delta: an OFS delta on the object at index base.
	base  int
	delta []byte
	// hash is the object's name (a delta's: the name of what it resolves
	// to, as AddDelta was told).
	hash plumbing.Hash
}

// Add appends a whole object of type typ and returns its index and name.
func (p *Pack) Add(typ plumbing.ObjectType, content []byte) (int, plumbing.Hash) {
	h := plumbing.ComputeHash(typ, content)
	p.objs = append(p.objs, packObject{typ: typ, content: content, base: -1, hash: h})
	return len(p.objs) - 1, h
}

// AddZeros appends a blob of size zero bytes, written and hashed as a
// stream.
func (p *Pack) AddZeros(size int64) (int, plumbing.Hash) {
	h := StreamHash(plumbing.BlobObject, size, zeroReader{})
	p.objs = append(p.objs, packObject{typ: plumbing.BlobObject, zeros: size, base: -1, hash: h})
	return len(p.objs) - 1, h
}

// AddDelta appends an OFS delta on the object at index base with the
// instructions delta (see CopyDelta), whose result is named result (for
// Index), and returns its index.
func (p *Pack) AddDelta(base int, delta []byte, result plumbing.Hash) int {
	p.objs = append(p.objs, packObject{typ: plumbing.OFSDeltaObject, base: base, delta: delta, hash: result})
	return len(p.objs) - 1
}

// AddTree appends a tree of entries (in git's order) and returns its index
// and name.
func (p *Pack) AddTree(t testing.TB, entries ...object.TreeEntry) (int, plumbing.Hash) {
	t.Helper()
	obj := &plumbing.MemoryObject{}
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		t.Fatal(err)
	}
	return p.Add(plumbing.TreeObject, readAll(t, obj))
}

// AddCommit appends a commit of tree and returns its index and name.
func (p *Pack) AddCommit(t testing.TB, tree plumbing.Hash) (int, plumbing.Hash) {
	t.Helper()
	sig := object.Signature{Name: "Test", Email: "test@example.invalid", When: when}
	obj := &plumbing.MemoryObject{}
	if err := (&object.Commit{Author: sig, Committer: sig, Message: "pack", TreeHash: tree}).Encode(obj); err != nil {
		t.Fatal(err)
	}
	return p.Add(plumbing.CommitObject, readAll(t, obj))
}

func readAll(t testing.TB, obj *plumbing.MemoryObject) []byte {
	t.Helper()
	r, err := obj.Reader()
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Bytes encodes the pack: header, objects (zlib), SHA-1 trailer.
func (p *Pack) Bytes(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	buf.WriteString("PACK")
	_ = binary.Write(&buf, binary.BigEndian, uint32(2))
	_ = binary.Write(&buf, binary.BigEndian, uint32(len(p.objs)))
	offsets := make([]int64, len(p.objs))
	p.crcs = make([]uint32, len(p.objs))
	zw, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	for i, o := range p.objs {
		offsets[i] = int64(buf.Len())
		var size int64
		var body io.Reader
		switch {
		case o.typ == plumbing.OFSDeltaObject:
			size, body = int64(len(o.delta)), bytes.NewReader(o.delta)
		case o.content != nil:
			size, body = int64(len(o.content)), bytes.NewReader(o.content)
		default:
			size, body = o.zeros, io.LimitReader(zeroReader{}, o.zeros)
		}
		buf.Write(objectHeader(o.typ, size))
		if o.typ == plumbing.OFSDeltaObject {
			buf.Write(ofsOffset(offsets[i] - offsets[o.base]))
		}
		zw.Reset(&buf)
		if _, err := io.Copy(zw, body); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		p.crcs[i] = crc32.ChecksumIEEE(buf.Bytes()[offsets[i]:])
	}
	sum := sha1.Sum(buf.Bytes())
	buf.Write(sum[:])
	p.offsets, p.sum = offsets, plumbing.Hash(sum)
	return buf.Bytes()
}

// Index is the .idx of the pack Bytes encoded, and the pack's checksum
// (its file name is pack-<checksum>.pack): a pack placed in a repository's
// objects/pack as it is, with no git tool indexing it.
func (p *Pack) Index(t testing.TB) ([]byte, plumbing.Hash) {
	t.Helper()
	if p.offsets == nil {
		t.Fatal("Index before Bytes")
	}
	w := new(idxfile.Writer)
	_ = w.OnHeader(uint32(len(p.objs)))
	for i, o := range p.objs {
		_ = w.OnInflatedObjectContent(o.hash, p.offsets[i], p.crcs[i], nil)
	}
	if err := w.OnFooter(p.sum); err != nil {
		t.Fatal(err)
	}
	idx, err := w.Index()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := idxfile.NewEncoder(&buf).Encode(idx); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), p.sum
}

// objectHeader is a pack entry's type and size.
func objectHeader(typ plumbing.ObjectType, size int64) []byte {
	b := byte(typ)<<4 | byte(size&0x0f)
	size >>= 4
	var out []byte
	for size > 0 {
		out = append(out, b|0x80)
		b = byte(size & 0x7f)
		size >>= 7
	}
	return append(out, b)
}

// ofsOffset is an OFS delta's distance to its base, in git's encoding.
func ofsOffset(n int64) []byte {
	out := []byte{byte(n & 0x7f)}
	for n >>= 7; n > 0; n >>= 7 {
		n--
		out = append([]byte{0x80 | byte(n&0x7f)}, out...)
	}
	return out
}

// CopyDelta is delta instructions that copy the whole base (baseSize
// bytes, at most 64 KiB) copies times: the result is baseSize*copies bytes
// from instructions of a few bytes each.
func CopyDelta(baseSize, copies int64) []byte {
	out := leb128(nil, uint64(baseSize))
	out = leb128(out, uint64(baseSize*copies))
	cmd := []byte{0x80}
	if baseSize&0xff != 0 {
		cmd[0] |= 0x10
		cmd = append(cmd, byte(baseSize))
	}
	if baseSize>>8&0xff != 0 {
		cmd[0] |= 0x20
		cmd = append(cmd, byte(baseSize>>8))
	}
	for range copies {
		out = append(out, cmd...)
	}
	return out
}

func leb128(out []byte, v uint64) []byte {
	for v >= 0x80 {
		out = append(out, byte(v)|0x80)
		v >>= 7
	}
	return append(out, byte(v))
}

// StreamHash is the name of an object of type typ and size bytes read from
// r.
func StreamHash(typ plumbing.ObjectType, size int64, r io.Reader) plumbing.Hash {
	h := sha1.New()
	h.Write([]byte(typ.String() + " " + strconv.FormatInt(size, 10) + "\x00"))
	_, _ = io.Copy(h, io.LimitReader(r, size))
	var out plumbing.Hash
	copy(out[:], h.Sum(nil))
	return out
}

// RepeatReader reads b over and over.
type RepeatReader struct {
	B []byte
	i int
}

func (r *RepeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.B[r.i:])
		n += c
		r.i = (r.i + c) % len(r.B)
	}
	return n, nil
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
