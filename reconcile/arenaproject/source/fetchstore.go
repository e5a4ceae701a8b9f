package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// How go-git reads a repository once it is on disk (fetched or hosted):
// objects over largeObjectThreshold are read lazily and streamed from the
// pack, never held, and decoded objects are cached up to readCacheBytes.
const (
	largeObjectThreshold = 1 << 20
	readCacheBytes       = 4 << 20
)

// fetchStorage is the object store of one fetch: go-git's filesystem
// storage on a fresh directory of Config.FetchDir, removed with the
// Repository. The pack the server sends reaches it only through
// PackfileWriter: it is written to disk (at most maxPackBytes), checked and
// indexed by indexPack, and only then given to go-git, which reads it
// lazily from the file.
type fetchStorage struct {
	*filesystem.Storage
	dir          string
	ctx          context.Context
	limits       packLimits
	maxPackBytes int64
}

func newFetchStorage(ctx context.Context, dir string, cfg Config) *fetchStorage {
	st := filesystem.NewStorageWithOptions(osfs.New(dir, osfs.WithBoundOS()), cache.NewObjectLRU(readCacheBytes),
		filesystem.Options{LargeObjectThreshold: largeObjectThreshold})
	return &fetchStorage{Storage: st, dir: dir, ctx: ctx, limits: cfg.packLimits(), maxPackBytes: cfg.MaxFetchBytes}
}

// PackfileWriter overrides the filesystem storage's: see fetchStorage.
func (s *fetchStorage) PackfileWriter() (io.WriteCloser, error) {
	packDir := filepath.Join(s.dir, "objects", "pack")
	if err := os.MkdirAll(packDir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(packDir, "tmp_pack_")
	if err != nil {
		return nil, err
	}
	return &packWriter{s: s, dir: packDir, f: f}, nil
}

// packWriter receives one pack.
type packWriter struct {
	s   *fetchStorage
	dir string
	f   *os.File
	n   int64
}

func (w *packWriter) Write(p []byte) (int, error) {
	if w.n+int64(len(p)) > w.s.maxPackBytes {
		return 0, ErrFetchTooLarge
	}
	n, err := w.f.Write(p)
	w.n += int64(n)
	return n, err
}

// Close checks and indexes the pack, and puts it where go-git finds it
// (objects/pack/pack-<checksum>.{pack,idx}). Any failure leaves no pack.
func (w *packWriter) Close() (err error) {
	tmp := w.f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if w.n == 0 {
		_ = w.f.Close()
		return errors.New("the server sent an empty pack")
	}
	if _, err := w.f.Seek(0, io.SeekStart); err != nil {
		_ = w.f.Close()
		return err
	}
	idx, err := os.CreateTemp(w.dir, "tmp_idx_")
	if err != nil {
		_ = w.f.Close()
		return err
	}
	sum, err := indexPack(w.s.ctx, w.f, idx, w.s.limits)
	err = errors.Join(err, w.f.Close(), idx.Close())
	if err != nil {
		_ = os.Remove(idx.Name())
		return err
	}
	base := filepath.Join(w.dir, fmt.Sprintf("pack-%s", sum))
	if err := os.Rename(idx.Name(), base+".idx"); err != nil {
		_ = os.Remove(idx.Name())
		return err
	}
	if err := os.Rename(tmp, base+".pack"); err != nil {
		return err
	}
	w.s.Reindex()
	return nil
}

// packLimits are the bounds of one fetched pack (see packindex.go).
func (c Config) packLimits() packLimits {
	return packLimits{
		maxObjects:     c.MaxObjects,
		maxObjectBytes: c.MaxObjectBytes,
		maxBlobBytes:   c.Limits.MaxSnapshotBytes,
		maxInflated:    c.MaxInflatedBytes,
	}
}
