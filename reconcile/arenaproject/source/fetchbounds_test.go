package source_test

import (
	"bytes"
	"context"

	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source/gittest"
)

// allocatedDuring is how many bytes the process allocated on the heap
// while f ran: TotalAlloc only grows, so a transient inflation counts even
// once it is freed.
func allocatedDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

const arenaYAML = "kind: Arena\nspec: {scenarios: [{file: a.yaml}]}\n"

// servePack serves a hand-built pack whose main branch (HEAD) is a commit
// of a tree with config.arena.yaml and the entries extra.
func servePack(t *testing.T, p *gittest.Pack, extra ...object.TreeEntry) (*gittest.Server, plumbing.Hash) {
	t.Helper()
	_, arena := p.Add(plumbing.BlobObject, []byte(arenaYAML))
	entries := append([]object.TreeEntry{{Name: "config.arena.yaml", Mode: filemode.Regular, Hash: arena}}, extra...)
	sortEntries(entries)
	_, tree := p.AddTree(t, entries...)
	_, commit := p.AddCommit(t, tree)
	pack := p.Bytes(t)
	main := plumbing.NewBranchReferenceName("main")
	return gittest.ServePack(t, pack, map[plumbing.ReferenceName]plumbing.Hash{main: commit}, main, gittest.Options{}), commit
}

func sortEntries(e []object.TreeEntry) {
	for i := 1; i < len(e); i++ {
		for j := i; j > 0 && e[j].Name < e[j-1].Name; j-- {
			e[j], e[j-1] = e[j-1], e[j]
		}
	}
}

// heapBound is what a refused or a streamed fetch may allocate in these
// tests: far under the content it declares (256 MiB), and well over what
// the fetch itself needs (buffers, the refs, the index).
const heapBound = 32 << 20

// TestFetchRefusesWhatInflatesPastItsBounds: a pack of a few hundred KiB
// on the wire that declares far more than the operator holds is refused
// from its headers, and the heap does not grow with what it declares:
//   - one very compressible blob larger than the snapshot cap (256 MiB of
//     zeros is about 250 KiB of zlib);
//   - a delta of a few hundred KiB whose instructions copy a 64 KiB base
//     4096 times (a 256 MiB object);
//   - more objects than the object bound (150000 empty blobs, 2 MB).
//
// Before the pack was checked, go-git inflated each of these into its
// memory storage inside the fetch.
func TestFetchRefusesWhatInflatesPastItsBounds(t *testing.T) {
	base := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range base {
		base[i] = byte(rng.Uint32())
	}
	cases := []struct {
		name  string
		build func(p *gittest.Pack) []object.TreeEntry
		cfg   source.Config
		says  string
	}{
		{name: "a compressible blob over the snapshot cap", build: func(p *gittest.Pack) []object.TreeEntry {
			_, h := p.AddZeros(256 << 20)
			return []object.TreeEntry{{Name: "zeros.bin", Mode: filemode.Regular, Hash: h}}
		}, cfg: source.Config{AllowHTTP: true, Limits: source.Limits{MaxSnapshotBytes: 64 << 20}}, says: "file of 268435456 bytes"},
		{name: "a delta that resolves to 256 MiB", build: func(p *gittest.Pack) []object.TreeEntry {
			bi, bh := p.Add(plumbing.BlobObject, base)
			h := gittest.StreamHash(plumbing.BlobObject, int64(len(base))*4096, &gittest.RepeatReader{B: base})
			p.AddDelta(bi, gittest.CopyDelta(int64(len(base)), 4096), h)
			return []object.TreeEntry{{Name: "base.bin", Mode: filemode.Regular, Hash: bh}, {Name: "bomb.bin", Mode: filemode.Regular, Hash: h}}
		}, cfg: source.Config{AllowHTTP: true}, says: "resolves to 268435456 bytes"},
		{name: "more objects than the bound", build: func(p *gittest.Pack) []object.TreeEntry {
			for range 150000 {
				p.Add(plumbing.BlobObject, []byte{})
			}
			return nil
		}, cfg: source.Config{AllowHTTP: true}, says: "objects, over the"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &gittest.Pack{}
			srv, _ := servePack(t, p, tc.build(p)...)
			var err error
			var r *source.Repository
			n := allocatedDuring(func() { r, err = source.Fetch(context.Background(), srv.URL, nil, tc.cfg) })
			if err == nil {
				_ = r.Close()
			}
			if source.ReasonOf(err) != v1alpha1.ArenaProjectReasonFetchFailed || !strings.Contains(err.Error(), "larger than") || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("Fetch = %v, want FetchFailed saying the repository is larger than the bounds (%q)", err, tc.says)
			}
			if n > heapBound {
				t.Errorf("the fetch allocated %d MiB, over %d MiB", n>>20, heapBound>>20)
			}
		})
	}
}

// TestFetchStreamsALargeBlob: a blob under the snapshot cap but larger
// than anything the operator holds (96 MiB of zeros) is fetched, checked
// and exported without being held: it is hashed as it inflates, read
// lazily from the pack on disk and streamed to the snapshot.
func TestFetchStreamsALargeBlob(t *testing.T) {
	const size = 96 << 20
	p := &gittest.Pack{}
	_, h := p.AddZeros(size)
	srv, commit := servePack(t, p, object.TreeEntry{Name: "zeros.bin", Mode: filemode.Regular, Hash: h})
	root := t.TempDir()
	var err error
	n := allocatedDuring(func() {
		var r *source.Repository
		if r, err = source.Fetch(context.Background(), srv.URL, nil, localHTTP); err != nil {
			return
		}
		defer func() { _ = r.Close() }()
		if err = r.CheckExportable(commit.String(), ""); err != nil {
			return
		}
		err = r.Export(commit.String(), "", exportDir(t, root, "proj"), commit.String())
	})
	if err != nil {
		t.Fatal(err)
	}
	if n > heapBound {
		t.Errorf("fetching and exporting a %d MiB blob allocated %d MiB, over %d MiB", size>>20, n>>20, heapBound>>20)
	}
	fi, err := os.Stat(filepath.Join(root, "ns", filepath.FromSlash(source.ContentPath("proj", commit.String())), "zeros.bin"))
	if err != nil || fi.Size() != size {
		t.Fatalf("exported zeros.bin: %v, %v", fi, err)
	}
}

// TestFetchResolvesDeltas: the operator's own pack index names delta
// objects right: a go-git server deltifies the versions of a file that
// changes a little between commits, and a hand-built delta that copies its
// base three times resolves to the same content go-git would compute.
func TestFetchResolvesDeltas(t *testing.T) {
	repo, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("the quick brown fox jumps over the lazy dog\n", 4000)
	var commits []plumbing.Hash
	var parents []plumbing.Hash
	for i := range 4 {
		c := gittest.Commit(t, repo, "v", map[string]gittest.File{
			"config.arena.yaml": {Content: arenaYAML},
			"big.txt":           {Content: line + strings.Repeat("x", i) + "\n"},
		}, parents...)
		commits, parents = append(commits, c), []plumbing.Hash{c}
	}
	gittest.Branch(t, repo, "main", commits[3])
	gittest.Head(t, repo, "main")
	r, err := source.Fetch(context.Background(), gittest.Serve(t, repo, gittest.Options{}).URL, nil, localHTTP)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	for i, c := range commits {
		got, err := r.ReadFile(c.String(), "big.txt", 1<<20)
		if want := line + strings.Repeat("x", i) + "\n"; err != nil || string(got) != want {
			t.Errorf("big.txt at commit %d: %d bytes, %v", i, len(got), err)
		}
	}

	base := []byte(strings.Repeat("0123456789abcdef", 256))
	p := &gittest.Pack{}
	bi, bh := p.Add(plumbing.BlobObject, base)
	want := bytes.Repeat(base, 3)
	p.AddDelta(bi, gittest.CopyDelta(int64(len(base)), 3), plumbing.ComputeHash(plumbing.BlobObject, want))
	srv, commit := servePack(t, p,
		object.TreeEntry{Name: "base.bin", Mode: filemode.Regular, Hash: bh},
		object.TreeEntry{Name: "thrice.bin", Mode: filemode.Regular, Hash: plumbing.ComputeHash(plumbing.BlobObject, want)})
	hr, err := source.Fetch(context.Background(), srv.URL, nil, localHTTP)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hr.Close() }()
	got, err := hr.ReadFile(commit.String(), "thrice.bin", 1<<20)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("thrice.bin: %d bytes, %v", len(got), err)
	}
}

// TestFetchLeavesNothingOnDisk: a fetch writes into its own directory of
// Config.FetchDir, removed when the repository is closed, and at once when
// the fetch fails.
func TestFetchLeavesNothingOnDisk(t *testing.T) {
	srv, _ := external(t, gittest.Options{})
	dir := t.TempDir()
	cfg := source.Config{AllowHTTP: true, FetchDir: dir}
	r, err := source.Fetch(context.Background(), srv.URL, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the fetch wrote %d entries in its directory, want 1", len(entries))
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	p := &gittest.Pack{}
	_, h := p.AddZeros(64 << 20)
	big, _ := servePack(t, p, object.TreeEntry{Name: "zeros.bin", Mode: filemode.Regular, Hash: h})
	cfg.Limits.MaxSnapshotBytes = 1 << 20
	if _, err := source.Fetch(context.Background(), big.URL, nil, cfg); err == nil {
		t.Fatal("the fetch over the bound succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d entries left in the fetch directory", len(entries))
	}
}
