package source

// What go-git may read of a hosted repository. The git directory is the
// tenant's: its packs and loose objects declare what they inflate to as a
// fetched pack does, and its other files (config, refs, packed-refs) are
// read whole. So every file go-git opens through rootFS is judged first,
// by the same bounds as a fetched pack (Config.MaxObjects, MaxObjectBytes,
// MaxInflatedBytes, Limits.MaxSnapshotBytes):
//
//   - a pack (objects/pack/*.pack): at most Config.MaxFetchBytes on disk,
//     and checked from its headers as a fetched pack is (scanPack) before
//     go-git reads an object of it; the verdict is kept for that file
//     (device, inode, size, change time), so a pack is read once however
//     often the repository is opened;
//   - a pack index (*.idx): version 2, at most MaxObjects entries, its
//     size what that count makes;
//   - a loose object: its declared type and size (the start of its zlib
//     stream) within the bounds of that type;
//   - any other file: at most maxPlainFileBytes.
//
// What is not closed: a tenant who rewrites a pack in place after it was
// checked, while the operator reads it, is read as rewritten (the reads
// are still bounded by go-git's own checks of declared sizes, not by
// these).

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"sync"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
)

// maxPlainFileBytes bounds a file of the git directory that go-git reads
// whole (config, HEAD, a ref, packed-refs, alternates, shallow).
const maxPlainFileBytes = 16 << 20

// readBounds are what a rootFS lets go-git read.
type readBounds struct {
	pack         packLimits
	maxPackBytes int64
}

func (c Config) readBounds() readBounds {
	return readBounds{pack: c.packLimits(), maxPackBytes: c.MaxFetchBytes}
}

var (
	packFileName  = regexp.MustCompile(`(^|/)objects/pack/[^/]+\.pack$`)
	idxFileName   = regexp.MustCompile(`(^|/)objects/pack/[^/]+\.idx$`)
	looseFileName = regexp.MustCompile(`(^|/)objects/[0-9a-f]{2}/[0-9a-f]{38}$`)
)

// judge decides whether go-git may read file (opened at rel); it leaves the
// file at its start.
func (b readBounds) judge(rel string, file *os.File) error {
	fi, err := file.Stat()
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return nil
	}
	switch {
	case packFileName.MatchString(rel):
		if fi.Size() > b.maxPackBytes {
			return overBound("a pack of %d bytes is over the %d-byte bound", fi.Size(), b.maxPackBytes)
		}
		err = b.judgePack(file, fi)
	case idxFileName.MatchString(rel):
		err = b.judgeIndex(file, fi)
	case looseFileName.MatchString(rel):
		err = b.judgeLoose(file)
	default:
		if fi.Size() > maxPlainFileBytes {
			return overBound("%s is %d bytes, over the %d-byte bound", rel, fi.Size(), maxPlainFileBytes)
		}
		return nil
	}
	if err != nil {
		return err
	}
	_, err = file.Seek(0, io.SeekStart)
	return err
}

// packVerdictKey names one version of a pack file.
type packVerdictKey struct {
	dev, ino        uint64
	size            int64
	ctimeS, ctimeNs int64
	limits          packLimits
	maxPackBytes    int64
}

// packVerdicts are the packs already judged, process-wide, bounded.
var packVerdicts = struct {
	sync.Mutex
	m map[packVerdictKey]error
}{m: map[packVerdictKey]error{}}

const maxPackVerdicts = 4096

func (b readBounds) judgePack(file *os.File, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	var key packVerdictKey
	if ok {
		key = packVerdictKey{dev: uint64(st.Dev), ino: st.Ino, size: fi.Size(), ctimeS: st.Ctim.Sec, ctimeNs: st.Ctim.Nsec,
			limits: b.pack, maxPackBytes: b.maxPackBytes}
		packVerdicts.Lock()
		verdict, seen := packVerdicts.m[key]
		packVerdicts.Unlock()
		if seen {
			return verdict
		}
	}
	verdict := checkPack(context.Background(), file, b.pack)
	if ok {
		packVerdicts.Lock()
		if len(packVerdicts.m) >= maxPackVerdicts {
			clear(packVerdicts.m)
		}
		packVerdicts.m[key] = verdict
		packVerdicts.Unlock()
	}
	return verdict
}

// checkPack is the first pass of indexPack (scanPack), and for each REF
// delta a base found among the pack's whole objects within the bound: a
// pack on disk is read by go-git with its own index, so its deltas are not
// resolved here, only sized. (A delta's base that is itself a delta is
// under maxObjectBytes, as every delta's result is.)
func checkPack(ctx context.Context, f io.ReadSeeker, lim packLimits) error {
	entries, _, err := scanPack(ctx, f, lim)
	if err != nil {
		return err
	}
	var byHash map[plumbing.Hash]int
	for i := range entries {
		e := &entries[i]
		if !e.isDelta() || e.ofsBase >= 0 {
			continue
		}
		if byHash == nil {
			byHash = map[plumbing.Hash]int{}
			for j := range entries {
				if !entries[j].isDelta() {
					byHash[entries[j].hash] = j
				}
			}
		}
		bi, ok := byHash[e.baseRef]
		if !ok {
			return overBound("a delta names a base the check cannot size (not a whole object of its pack)")
		}
		if err := e.setBase(entries, bi, lim); err != nil {
			return err
		}
	}
	return nil
}

// judgeIndex checks a pack index's header: version 2 and at most
// maxObjects entries, in a file of the size that count makes.
func (b readBounds) judgeIndex(file *os.File, fi fs.FileInfo) error {
	var head [8 + 256*4]byte
	if _, err := io.ReadFull(file, head[:]); err != nil {
		return malformed("a pack index is truncated")
	}
	if !bytes.Equal(head[:4], []byte{0xff, 't', 'O', 'c'}) || binary.BigEndian.Uint32(head[4:8]) != 2 {
		return malformed("a pack index is not of version 2")
	}
	count := int64(binary.BigEndian.Uint32(head[len(head)-4:]))
	if count > int64(b.pack.maxObjects) {
		return overBound("a pack index holds %d objects, over the %d-object bound", count, b.pack.maxObjects)
	}
	// Names, CRCs and offsets (28 bytes each), 64-bit offsets (at most 8
	// each) and the two checksums.
	if fi.Size() > int64(len(head))+count*36+40 {
		return malformed("a pack index is larger than its %d entries", count)
	}
	return nil
}

// judgeLoose reads a loose object's header ("<type> <size>\x00") and
// checks its declared size against its type's bound.
func (b readBounds) judgeLoose(file *os.File) error {
	zr, err := zlib.NewReader(file)
	if err != nil {
		return malformed("a loose object is not zlib data")
	}
	defer func() { _ = zr.Close() }()
	var head [32]byte
	n, _ := io.ReadAtLeast(zr, head[:], 1)
	i := bytes.IndexByte(head[:n], 0)
	if i < 0 {
		// The header may be longer than what one read gave: read on.
		m, _ := io.ReadFull(zr, head[n:])
		n += m
		if i = bytes.IndexByte(head[:n], 0); i < 0 {
			return malformed("a loose object has no header")
		}
	}
	typ, size, ok := bytes.Cut(head[:i], []byte{' '})
	if !ok {
		return malformed("a loose object has no size")
	}
	sz, err := strconv.ParseInt(string(size), 10, 64)
	if err != nil || sz < 0 {
		return malformed("a loose object has no valid size")
	}
	t, err := plumbing.ParseObjectType(string(typ))
	if err != nil {
		return malformed("a loose object has an unknown type")
	}
	bound, what := b.pack.maxObjectBytes, t.String()
	if t == plumbing.BlobObject {
		bound, what = b.pack.maxBlobBytes, "file"
	}
	if sz > bound {
		return overBound("a %s of %d bytes is over the %d-byte bound", what, sz, bound)
	}
	return nil
}

// judgePacks opens every pack and index of the git directory through fsys,
// so a hosted repository over the bounds is refused when it is opened,
// with its reason, rather than object by object.
func judgePacks(fsys *rootFS) error {
	entries, err := fsys.ReadDir("objects/pack")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := "objects/pack/" + e.Name()
		if e.IsDir() || !(packFileName.MatchString(name) || idxFileName.MatchString(name)) {
			continue
		}
		f, err := fsys.Open(name)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name(), err)
		}
		_ = f.Close()
	}
	return nil
}
