package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// target is one fuzz function and the package (directory relative to the
// repository root, "./rules") that holds it.
type target struct {
	Pkg, Name string
}

// fuzzFunc matches a fuzz target's declaration at the start of a line.
var fuzzFunc = regexp.MustCompile(`(?m)^func (Fuzz\w+)\(\w+ \*testing\.F\)`)

// skipDirs are directories that hold no package of this module's own:
// build output, local state, other checkouts, test data.
var skipDirs = map[string]bool{"bin": true, ".local": true, ".git": true, "testdata": true, "node_modules": true}

// discover finds every fuzz target under root, sorted by package then name,
// so the campaign never misses one a later change adds.
func discover(root string) ([]target, error) {
	var out []target
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, m := range fuzzFunc.FindAllStringSubmatch(string(src), -1) {
			out = append(out, target{Pkg: "./" + filepath.ToSlash(rel), Name: m[1]})
		}
		return nil
	})
	slices.SortFunc(out, func(a, b target) int {
		if c := strings.Compare(a.Pkg, b.Pkg); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, err
}
