package main

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
)

// coverageLine is `go test -cover`'s summary, e.g.
// "ok  	pkg	1.2s	coverage: 61.4% of statements in pkg".
var coverageLine = regexp.MustCompile(`coverage: ([0-9.]+)% of statements`)

// parseCoverage reads the statement coverage from `go test -cover` output.
func parseCoverage(out []byte) (float64, bool) {
	m := coverageLine.FindSubmatch(out)
	if m == nil {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(m[1]), 64)
	return f, err == nil
}

// corpusCoverage is the statement coverage of the target's package when the
// target replays its committed corpus (seeds and testdata/fuzz) as a plain
// test: what the corpus, not the random search, covers.
func corpusCoverage(ctx context.Context, root, module string, t target) (float64, error) {
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-run", "^"+t.Name+"$", "-cover", "-coverpkg", module+t.Pkg[1:], t.Pkg)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%s %s replaying its corpus: %v\n%s", t.Pkg, t.Name, err, tail(string(out), 2000))
	}
	cov, ok := parseCoverage(out)
	if !ok {
		return 0, fmt.Errorf("%s %s: no coverage in:\n%s", t.Pkg, t.Name, out)
	}
	return cov, nil
}
