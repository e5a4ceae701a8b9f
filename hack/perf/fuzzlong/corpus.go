package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// maxCorpusPerTarget bounds what one campaign adds to a target's committed
// corpus: every entry is replayed by `make fuzz-smoke` (part of make test).
const maxCorpusPerTarget = 300

// cacheDir is where the go command keeps the inputs a target's fuzzing
// found new coverage with: $GOCACHE/fuzz/<import path>/<target>.
func cacheDir(gocache, module string, t target) string {
	return filepath.Join(gocache, "fuzz", module, filepath.FromSlash(t.Pkg[len("./"):]), t.Name)
}

// corpusDir is the target's committed corpus, which `go test` replays as
// seed inputs: <package>/testdata/fuzz/<target>.
func corpusDir(root string, t target) string {
	return filepath.Join(root, filepath.FromSlash(t.Pkg), "testdata", "fuzz", t.Name)
}

// commitCorpus copies the cached inputs the committed corpus lacks into it
// (file names are content hashes, so an input is never copied twice), at
// most limit of them, in name order. It returns how many it copied and how
// many it left because of the limit.
func commitCorpus(from, to string, limit int) (copied, left int, err error) {
	entries, err := os.ReadDir(from)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	for _, name := range names {
		dst := filepath.Join(to, name)
		if _, err := os.Stat(dst); err == nil {
			continue
		}
		if copied == limit {
			left++
			continue
		}
		data, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			return copied, left, err
		}
		if err := os.MkdirAll(to, 0o755); err != nil {
			return copied, left, err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return copied, left, fmt.Errorf("%s: %w", dst, err)
		}
		copied++
	}
	return copied, left, nil
}

// countFiles counts the regular files in dir (0 when it does not exist).
func countFiles(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if e.Type().IsRegular() {
			n++
		}
	}
	return n
}
