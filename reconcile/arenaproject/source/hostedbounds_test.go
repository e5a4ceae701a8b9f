package source_test

import (
	"bytes"
	"compress/zlib"

	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source/gittest"
)

// TestHostedRepositoryOverTheBoundsIsNotRead: a hosted repository is the
// tenant's files, and what they declare is bounded as a fetched pack's is,
// before go-git reads it: a pack placed in objects/pack whose delta
// resolves to 256 MiB, a loose commit that declares 256 MiB (a 256 KiB
// file), a config file of 20 MiB. Opening the repository, looking at its
// head and exporting its snapshot fail with the bound, and the heap does
// not grow with what the files declare. Before, go-git inflated each into
// memory (the delta when the snapshot was exported).
func TestHostedRepositoryOverTheBoundsIsNotRead(t *testing.T) {
	base := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range base {
		base[i] = byte(rng.Uint32())
	}
	cases := []struct {
		name  string
		plant func(t *testing.T, gitDir string) plumbing.Hash
		says  string
	}{
		{name: "a packed delta that resolves to 256 MiB", plant: func(t *testing.T, gitDir string) plumbing.Hash {
			p := &gittest.Pack{}
			bi, bh := p.Add(plumbing.BlobObject, base)
			h := gittest.StreamHash(plumbing.BlobObject, int64(len(base))*4096, &gittest.RepeatReader{B: base})
			p.AddDelta(bi, gittest.CopyDelta(int64(len(base)), 4096), h)
			_, arena := p.Add(plumbing.BlobObject, []byte(arenaYAML))
			_, tree := p.AddTree(t, object.TreeEntry{Name: "base.bin", Mode: filemode.Regular, Hash: bh},
				object.TreeEntry{Name: "bomb.bin", Mode: filemode.Regular, Hash: h},
				object.TreeEntry{Name: "config.arena.yaml", Mode: filemode.Regular, Hash: arena})
			_, commit := p.AddCommit(t, tree)
			pack := p.Bytes(t)
			idx, sum := p.Index(t)
			dir := filepath.Join(gitDir, "objects", "pack")
			write(t, filepath.Join(dir, "pack-"+sum.String()+".pack"), pack)
			write(t, filepath.Join(dir, "pack-"+sum.String()+".idx"), idx)
			return commit
		}, says: "resolves to 268435456 bytes"},
		{name: "a loose commit of 256 MiB", plant: func(t *testing.T, gitDir string) plumbing.Hash {
			const size = 256 << 20
			h := gittest.StreamHash(plumbing.CommitObject, size, &gittest.RepeatReader{B: make([]byte, 64<<10)})
			var buf bytes.Buffer
			zw := zlib.NewWriter(&buf)
			_, _ = io.WriteString(zw, "commit 268435456\x00")
			_, _ = io.Copy(zw, io.LimitReader(&gittest.RepeatReader{B: make([]byte, 64<<10)}, size))
			_ = zw.Close()
			write(t, filepath.Join(gitDir, "objects", h.String()[:2], h.String()[2:]), buf.Bytes())
			return h
		}, says: "commit of 268435456 bytes"},
		{name: "a config file of 20 MiB", plant: func(t *testing.T, gitDir string) plumbing.Hash {
			write(t, filepath.Join(gitDir, "config"), append([]byte("[core]\n"), bytes.Repeat([]byte(" "), 20<<20)...))
			return plumbing.ZeroHash
		}, says: "config is 20971527 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			dir := source.HostedPath(root, "ns", "proj")
			repo, err := git.PlainInit(dir, false)
			if err != nil {
				t.Fatal(err)
			}
			head := tc.plant(t, filepath.Join(dir, ".git"))
			if !head.IsZero() {
				gittest.Branch(t, repo, "main", head)
				gittest.Head(t, repo, "main")
			}
			var errs []error
			n := allocatedDuring(func() {
				r, err := source.OpenHosted(root, "ns", "proj", source.Limits{})
				if err != nil {
					errs = append(errs, err)
					return
				}
				defer func() { _ = r.Close() }()
				c, err := r.Head()
				if err != nil {
					errs = append(errs, err)
					return
				}
				errs = append(errs, r.CheckExportable(c, ""))
				errs = append(errs, r.Export(c, "", exportDir(t, t.TempDir(), "proj"), c))
			})
			said := false
			for _, err := range errs {
				if err != nil && strings.Contains(err.Error(), "larger than") && strings.Contains(err.Error(), tc.says) {
					said = true
				}
			}
			if !said {
				t.Errorf("errors %v, want one saying the repository is larger than the bounds (%q)", errs, tc.says)
			}
			if n > heapBound {
				t.Errorf("reading the repository allocated %d MiB, over %d MiB", n>>20, heapBound>>20)
			}
		})
	}
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
