package source

// The pack a git server sends is checked, and indexed, by the operator's
// own code before go-git reads a single object from it. The wire budget
// (Config.MaxFetchBytes) bounds the compressed bytes; what an object
// inflates to is what the server declares, and one megabyte of zlib can
// declare a gigabyte. go-git's own indexer (and its memory storage, which
// the fetch used to land in) holds each object whole while it hashes it,
// so a small pack was a large heap.
//
// indexPack reads the pack twice, from the file it was written to:
//
//  1. The headers, as they stream: the object count is checked against
//     packLimits.maxObjects before anything is allocated for it; each
//     whole object's declared size against its bound before it is
//     inflated (a blob: maxBlobBytes, the snapshot cap, since it is only
//     ever streamed; a commit, tree or tag: maxObjectBytes, since go-git
//     decodes those whole); each delta's declared result size (the second
//     number of its delta header) against maxObjectBytes, and its base's
//     size, since resolving a delta holds its base and its result; and the
//     sum of every object's inflated size against maxInflated. Whole
//     objects are hashed while they inflate, never held (go-git's scanner
//     also refuses an object that inflates past its declared size).
//  2. The deltas, resolved in pack order: each holds its base and its
//     result (both under maxObjectBytes), with a small cache of bases, and
//     the bytes resolution produces are bounded in total (so deltas
//     chained to thrash the cache cost an error, not an hour).
//
// It then writes the pack's .idx, so go-git's filesystem storage reads the
// objects lazily from the pack on disk (packfile.FSObject), streaming the
// large blobs.

import (
	"container/list"
	"context"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// packLimits bound one pack.
type packLimits struct {
	// maxObjects: objects in the pack.
	maxObjects int
	// maxObjectBytes: an object held whole in memory — a commit, tree or
	// tag, a delta's base and result, a delta's instructions.
	maxObjectBytes int64
	// maxBlobBytes: a blob stored whole (streamed, never held).
	maxBlobBytes int64
	// maxInflated: the sum of every object's inflated size.
	maxInflated int64
}

// deltaWorkFactor bounds the bytes delta resolution may produce, as a
// multiple of maxInflated: an ordinary pack needs about one.
const deltaWorkFactor = 4

// maxDeltaDepth is the longest delta chain accepted (git's own ceiling).
const maxDeltaDepth = 4095

// packBoundError is a pack over one of its bounds; it is ErrFetchTooLarge.
type packBoundError struct{ detail string }

func (e *packBoundError) Error() string        { return ErrFetchTooLarge.Error() + ": " + e.detail }
func (e *packBoundError) Is(target error) bool { return target == ErrFetchTooLarge }

func overBound(format string, args ...any) error {
	return &packBoundError{detail: fmt.Sprintf(format, args...)}
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", packfile.ErrMalformedPackFile, fmt.Sprintf(format, args...))
}

// packEntry is one object of the pack.
type packEntry struct {
	offset   int64
	crc      uint32
	diskType plumbing.ObjectType
	// typ and size are the object's own (a delta's: its result's); typ is
	// unknown (0) for a REF delta until its base is found.
	typ  plumbing.ObjectType
	size int64
	// srcSize is a delta's declared base size.
	srcSize int64
	// base is a delta's base entry (-1: none, or not checked yet); ofsBase
	// an OFS delta's base by offset, baseRef a REF delta's by name.
	base    int
	ofsBase int
	baseRef plumbing.Hash
	depth   int
	hash    plumbing.Hash
}

func (e *packEntry) isDelta() bool { return e.diskType.IsDelta() }

// indexPack checks the pack in f against lim (see the file comment) and
// writes its index to idx. It returns the pack's checksum. ctx stops it
// between two objects.
func indexPack(ctx context.Context, f io.ReadSeeker, idx io.Writer, lim packLimits) (plumbing.Hash, error) {
	entries, checksum, err := scanPack(ctx, f, lim)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if err := resolveDeltas(ctx, f, entries, lim); err != nil {
		return plumbing.ZeroHash, err
	}
	w := new(idxfile.Writer)
	if err := w.OnHeader(uint32(len(entries))); err != nil {
		return plumbing.ZeroHash, err
	}
	for i := range entries {
		e := &entries[i]
		if err := w.OnInflatedObjectContent(e.hash, e.offset, e.crc, nil); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	if err := w.OnFooter(checksum); err != nil {
		return plumbing.ZeroHash, err
	}
	mi, err := w.Index()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := idxfile.NewEncoder(idx).Encode(mi); err != nil {
		return plumbing.ZeroHash, err
	}
	return checksum, nil
}

// scanPack is the first pass: every header checked before its object is
// inflated, whole objects hashed as they stream, deltas' sizes read.
func scanPack(ctx context.Context, f io.ReadSeeker, lim packLimits) ([]packEntry, plumbing.Hash, error) {
	s := packfile.NewScanner(f)
	_, count, err := s.Header()
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	if int64(count) > int64(lim.maxObjects) {
		return nil, plumbing.ZeroHash, overBound("the pack holds %d objects, over the %d-object bound", count, lim.maxObjects)
	}
	entries := make([]packEntry, 0, count)
	byOffset := make(map[int64]int, count)
	var total int64
	for range count {
		if err := ctx.Err(); err != nil {
			return nil, plumbing.ZeroHash, err
		}
		h, err := s.NextObjectHeader()
		if err != nil {
			return nil, plumbing.ZeroHash, err
		}
		e := packEntry{offset: h.Offset, diskType: h.Type, base: -1, ofsBase: -1}
		switch h.Type {
		case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
			bound, what := lim.maxObjectBytes, h.Type.String()
			if h.Type == plumbing.BlobObject {
				bound, what = lim.maxBlobBytes, "file"
			}
			if h.Length > bound {
				return nil, plumbing.ZeroHash, overBound("a %s of %d bytes is over the %d-byte bound", what, h.Length, bound)
			}
			if total += h.Length; total > lim.maxInflated {
				return nil, plumbing.ZeroHash, overBound("its objects inflate to more than %d bytes", lim.maxInflated)
			}
			hs := plumbing.NewHasher(h.Type, h.Length)
			n, crc, err := s.NextObject(hs)
			if err != nil {
				return nil, plumbing.ZeroHash, err
			}
			if n != h.Length {
				return nil, plumbing.ZeroHash, malformed("an object inflates to %d bytes, not the %d it declares", n, h.Length)
			}
			e.typ, e.size, e.crc, e.hash = h.Type, h.Length, crc, hs.Sum()
		case plumbing.OFSDeltaObject, plumbing.REFDeltaObject:
			if h.Length > lim.maxObjectBytes {
				return nil, plumbing.ZeroHash, overBound("a delta of %d bytes is over the %d-byte bound", h.Length, lim.maxObjectBytes)
			}
			var head deltaHead
			n, crc, err := s.NextObject(&head)
			if err != nil {
				return nil, plumbing.ZeroHash, err
			}
			if n != h.Length {
				return nil, plumbing.ZeroHash, malformed("a delta inflates to %d bytes, not the %d it declares", n, h.Length)
			}
			src, target, ok := head.sizes()
			if !ok {
				return nil, plumbing.ZeroHash, malformed("a delta has no valid header")
			}
			if target > lim.maxObjectBytes {
				return nil, plumbing.ZeroHash, overBound("a delta resolves to %d bytes, over the %d-byte bound", target, lim.maxObjectBytes)
			}
			if total += target; total > lim.maxInflated {
				return nil, plumbing.ZeroHash, overBound("its objects inflate to more than %d bytes", lim.maxInflated)
			}
			e.srcSize, e.size, e.crc = src, target, crc
			if h.Type == plumbing.OFSDeltaObject {
				bi, ok := byOffset[h.OffsetReference]
				if !ok {
					return nil, plumbing.ZeroHash, malformed("a delta's base is not an object of the pack")
				}
				e.ofsBase = bi
				// A base that is a REF delta has no type yet: checked
				// when it is resolved, in the second pass.
				if entries[bi].typ != 0 {
					if err := e.setBase(entries, bi, lim); err != nil {
						return nil, plumbing.ZeroHash, err
					}
				}
			} else {
				e.baseRef = h.Reference
			}
		default:
			return nil, plumbing.ZeroHash, malformed("an object has the unknown type %d", h.Type)
		}
		byOffset[h.Offset] = len(entries)
		entries = append(entries, e)
	}
	checksum, err := s.Checksum()
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	return entries, checksum, nil
}

// setBase makes entries[bi] e's base, after checking that it may be one.
func (e *packEntry) setBase(entries []packEntry, bi int, lim packLimits) error {
	b := &entries[bi]
	if b.size > lim.maxObjectBytes {
		return overBound("a delta is based on an object of %d bytes, over the %d-byte bound", b.size, lim.maxObjectBytes)
	}
	if b.size != e.srcSize {
		return malformed("a delta's base is %d bytes, not the %d it declares", b.size, e.srcSize)
	}
	if b.typ == 0 {
		return malformed("a delta's base is not resolved before it")
	}
	if e.depth = b.depth + 1; e.depth > maxDeltaDepth {
		return malformed("a delta chain is longer than %d", maxDeltaDepth)
	}
	e.base, e.typ = bi, b.typ
	return nil
}

// resolveDeltas is the second pass: each delta's content computed, in
// pack order, to name it.
func resolveDeltas(ctx context.Context, f io.ReadSeeker, entries []packEntry, lim packLimits) error {
	byHash := map[plumbing.Hash]int{}
	hasDelta := false
	for i := range entries {
		if entries[i].isDelta() {
			hasDelta = true
		} else {
			byHash[entries[i].hash] = i
		}
	}
	if !hasDelta {
		return nil
	}
	r := &deltaResolver{
		s: packfile.NewScanner(f), entries: entries, lim: lim,
		budget: deltaWorkFactor * lim.maxInflated,
		cache:  newBaseCache(min(lim.maxObjectBytes, 16<<20)),
	}
	for i := range entries {
		e := &entries[i]
		if !e.isDelta() {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.base < 0 {
			bi := e.ofsBase
			if bi < 0 {
				var ok bool
				if bi, ok = byHash[e.baseRef]; !ok {
					return malformed("a delta names a base the pack does not hold before it (a thin pack)")
				}
			}
			if err := e.setBase(entries, bi, lim); err != nil {
				return err
			}
		}
		content, err := r.content(i)
		if err != nil {
			return err
		}
		hs := plumbing.NewHasher(e.typ, e.size)
		_, _ = hs.Write(content)
		e.hash = hs.Sum()
		byHash[e.hash] = i
	}
	return nil
}

// deltaResolver computes objects' contents from the pack file.
type deltaResolver struct {
	s       *packfile.Scanner
	entries []packEntry
	lim     packLimits
	// budget is what the bytes produced may still reach.
	budget int64
	cache  *baseCache
}

// content is entry i's content: read whole, or its base's with its delta
// applied. Only objects under maxObjectBytes get here (setBase checked).
func (r *deltaResolver) content(i int) ([]byte, error) {
	if b, ok := r.cache.get(i); ok {
		return b, nil
	}
	e := &r.entries[i]
	var out []byte
	if !e.isDelta() {
		b, err := r.read(e)
		if err != nil {
			return nil, err
		}
		out = b
	} else {
		base, err := r.content(e.base)
		if err != nil {
			return nil, err
		}
		delta, err := r.read(e)
		if err != nil {
			return nil, err
		}
		if out, err = packfile.PatchDelta(base, delta); err != nil {
			return nil, fmt.Errorf("%w: %w", packfile.ErrMalformedPackFile, err)
		}
		if int64(len(out)) != e.size {
			return nil, malformed("a delta resolves to %d bytes, not the %d it declares", len(out), e.size)
		}
	}
	if r.budget -= int64(len(out)); r.budget < 0 {
		return nil, overBound("resolving its deltas produces more than %d bytes", deltaWorkFactor*r.lim.maxInflated)
	}
	r.cache.put(i, out)
	return out, nil
}

// read inflates entry e's data (a whole object, or a delta's instructions).
func (r *deltaResolver) read(e *packEntry) ([]byte, error) {
	h, err := r.s.SeekObjectHeader(e.offset)
	if err != nil {
		return nil, err
	}
	if h.Length > r.lim.maxObjectBytes {
		return nil, overBound("an object of %d bytes is over the %d-byte bound", h.Length, r.lim.maxObjectBytes)
	}
	buf := make([]byte, 0, h.Length)
	w := &sliceWriter{b: buf}
	if _, _, err := r.s.NextObject(w); err != nil {
		return nil, err
	}
	return w.b, nil
}

type sliceWriter struct{ b []byte }

func (w *sliceWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// deltaHead keeps the start of a delta's instructions, where its two sizes
// are, and discards the rest.
type deltaHead struct {
	b [20]byte
	n int
}

func (d *deltaHead) Write(p []byte) (int, error) {
	if d.n < len(d.b) {
		d.n += copy(d.b[d.n:], p)
	}
	return len(p), nil
}

// sizes are the delta's base and result sizes (two LEB128 numbers).
func (d *deltaHead) sizes() (src, target int64, ok bool) {
	b := d.b[:d.n]
	src, b, ok = leb128(b)
	if !ok {
		return 0, 0, false
	}
	target, _, ok = leb128(b)
	return src, target, ok
}

func leb128(b []byte) (int64, []byte, bool) {
	var v uint64
	for i, c := range b {
		if i >= 9 {
			return 0, nil, false
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			if v > 1<<62 {
				return 0, nil, false
			}
			return int64(v), b[i+1:], true
		}
	}
	return 0, nil, false
}

// baseCache keeps recently computed contents, bounded in bytes.
type baseCache struct {
	max, size int64
	order     *list.List
	byEntry   map[int]*list.Element
}

type cached struct {
	entry int
	b     []byte
}

func newBaseCache(max int64) *baseCache {
	return &baseCache{max: max, order: list.New(), byEntry: map[int]*list.Element{}}
}

func (c *baseCache) get(i int) ([]byte, bool) {
	el, ok := c.byEntry[i]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cached).b, true
}

func (c *baseCache) put(i int, b []byte) {
	if int64(len(b)) > c.max {
		return
	}
	if _, ok := c.byEntry[i]; ok {
		return
	}
	c.byEntry[i] = c.order.PushFront(&cached{entry: i, b: b})
	c.size += int64(len(b))
	for c.size > c.max {
		el := c.order.Back()
		v := el.Value.(*cached)
		c.order.Remove(el)
		delete(c.byEntry, v.entry)
		c.size -= int64(len(v.b))
	}
}
